import {
  type EffortLevel,
  effortLevels,
  modelOptionOf,
  type PatchSettingsBody,
  type SessionDetail,
} from '@outrigger/host-api';
import { useEffect, useRef, useState } from 'react';
import { type ContextWindow, nextContextReading } from '../data/contextReading.ts';
import { formatCost, formatTokens, messageOf } from '../data/format.ts';
import { isAboutField } from '../data/hostErrorDetails.ts';
import { ModelPicker, useKnownModels } from './ModelPicker.tsx';
import { modeChange, modeOf, PermissionModePicker } from './PermissionModeOptions.tsx';

/** Model, mode and effort; usage, cost and the always-visible context meter. */
export function SettingsBar({
  session,
  update,
}: {
  session: SessionDetail;
  update: (body: PatchSettingsBody) => Promise<void>;
}) {
  const [error, setError] = useState<string | null>(null);
  const [modelError, setModelError] = useState<string | null>(null);
  const [expanded, setExpanded] = useState(false);
  // What the person just chose, shown until the host's settings event says what holds (a control that
  // snapped back until the round trip ended would look like it ignored the click).
  const [chosen, setChosen] = useState<PatchSettingsBody>({});
  // biome-ignore lint/correctness/useExhaustiveDependencies: any settings the host reports replace the choice
  useEffect(() => setChosen({}), [session.settings]);
  const apply = (body: PatchSettingsBody) => {
    setChosen((current) => ({ ...current, ...body }));
    update(body).then(
      () => {
        setError(null);
        if (body.model !== undefined) setModelError(null);
      },
      (e: unknown) => {
        setChosen({});
        // A model Claude Code rejected is said at the model picker, where it was chosen.
        if (isAboutField(e, 'model')) setModelError(messageOf(e));
        else setError(messageOf(e));
      },
    );
  };
  const modelOption = modelOptionOf(session.configOptions);
  const reported = modelOption?.options ?? [];
  // Before Claude Code reported this session's models, those it reported to the newest session.
  const known = useKnownModels(reported.length === 0);
  const settings = { ...session.settings, ...chosen };
  const disabled = session.closed;
  return (
    <fieldset className="settings-bar" data-expanded={expanded}>
      <legend className="sr-only">Session settings</legend>
      <button
        type="button"
        className="btn btn-small settings-toggle"
        aria-expanded={expanded}
        onClick={() => setExpanded((value) => !value)}
      >
        Settings
      </button>
      <span className="settings-controls">
        <ModelPicker
          className="settings-picker"
          options={reported.length > 0 ? reported : known}
          value={settings.model}
          disabled={disabled}
          error={modelError}
          onChange={(model) => apply({ model })}
        />
        <PermissionModePicker
          className="settings-picker"
          value={modeOf(settings)}
          disabled={disabled}
          onChange={(mode) => apply(modeChange(mode))}
        />
        <label>
          Effort
          <select
            className="select"
            value={settings.effort ?? ''}
            disabled={disabled}
            onChange={(event) =>
              event.currentTarget.value !== '' && void apply({ effort: event.currentTarget.value as EffortLevel })
            }
          >
            {settings.effort === null && <option value="">Default</option>}
            {effortLevels.map((level) => (
              <option key={level} value={level}>
                {level}
              </option>
            ))}
          </select>
        </label>
      </span>
      {error !== null && (
        <span className="composer-error" role="alert">
          {error}
        </span>
      )}
      <span className="settings-usage">
        <span title="Tokens this session">
          {formatTokens(session.usage.inputTokens)} in · {formatTokens(session.usage.outputTokens)} out
        </span>
        {formatCost(session.usage.totalCostUsd) !== null && (
          <span title="Cost this session">{formatCost(session.usage.totalCostUsd)}</span>
        )}
        <ContextMeter sessionId={session.id} window={session.usage.contextWindow} />
      </span>
    </fieldset>
  );
}

/** How full the context is; the last measurement stays until a new one arrives (a starting turn has none yet). */
function ContextMeter({ sessionId, window: current }: { sessionId: string; window: ContextWindow | null }) {
  const last = useRef<{ sessionId: string; reading: ContextWindow | null }>({ sessionId, reading: null });
  if (last.current.sessionId !== sessionId) last.current = { sessionId, reading: null };
  const window = nextContextReading(last.current.reading, current);
  last.current.reading = window;
  const used = window?.usedTokens ?? 0;
  const total = window?.totalTokens ?? null;
  const share = total === null || total === 0 ? null : Math.min(1, used / total);
  const level = share === null ? 'low' : share >= 0.9 ? 'full' : share >= 0.7 ? 'high' : 'low';
  const label =
    window === null
      ? 'Context: not measured yet'
      : share === null
        ? `Context: ${formatTokens(used)} tokens used`
        : `Context: ${Math.round(share * 100)}% used (${formatTokens(used)} of ${formatTokens(total ?? 0)} tokens)${window.compactsAutomatically ? ', compacts automatically' : ''}`;
  return (
    <span className="meter" data-level={level} title={label}>
      <span className="sr-only">{label}</span>
      <span aria-hidden="true">ctx</span>
      <span className="meter-bar" aria-hidden="true">
        <span className="meter-fill" style={{ display: 'block', width: `${(share ?? 0) * 100}%` }} />
      </span>
      <span aria-hidden="true" data-testid="context-share">
        {share === null ? (window === null ? '—' : formatTokens(used)) : `${Math.round(share * 100)}%`}
      </span>
    </span>
  );
}

import {
  type EffortLevel,
  effortLevels,
  type PatchSettingsBody,
  type PermissionMode,
  type SessionDetail,
} from '@outrigger/host-api';
import { useEffect, useState } from 'react';
import { formatCost, formatTokens, messageOf } from '../data/format.ts';
import { PermissionModeOptions } from './PermissionModeOptions.tsx';

/** Model, permission mode, plan mode and effort; usage, cost and the always-visible context meter. */
export function SettingsBar({
  session,
  update,
}: {
  session: SessionDetail;
  update: (body: PatchSettingsBody) => Promise<void>;
}) {
  const [error, setError] = useState<string | null>(null);
  const [expanded, setExpanded] = useState(false);
  // What the person just chose, shown until the host's settings event says what holds (a control that
  // snapped back until the round trip ended would look like it ignored the click).
  const [chosen, setChosen] = useState<PatchSettingsBody>({});
  // biome-ignore lint/correctness/useExhaustiveDependencies: any settings the host reports replace the choice
  useEffect(() => setChosen({}), [session.settings]);
  const apply = (body: PatchSettingsBody) => {
    setChosen((current) => ({ ...current, ...body }));
    update(body).then(
      () => setError(null),
      (e: unknown) => {
        setChosen({});
        setError(messageOf(e));
      },
    );
  };
  const modelOption = session.configOptions.find((option) => option.id === 'model' || option.category === 'model');
  const models = modelOption?.options ?? [];
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
        {models.length > 0 ? (
          <label>
            Model
            <select
              className="select"
              value={settings.model}
              disabled={disabled}
              onChange={(event) => void apply({ model: event.currentTarget.value })}
            >
              {!models.some((option) => option.value === settings.model) && (
                <option value={settings.model}>{settings.model}</option>
              )}
              {models.map((option) => (
                <option key={option.value} value={option.value}>
                  {option.name}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <span className="settings-model">
            Model{' '}
            <span className="tag" title={session.effectiveModel ?? undefined}>
              {session.effectiveModel ?? settings.model}
            </span>
          </span>
        )}
        <label>
          Permissions
          <select
            className="select"
            value={settings.permissionMode}
            disabled={disabled}
            onChange={(event) => void apply({ permissionMode: event.currentTarget.value as PermissionMode })}
          >
            <PermissionModeOptions />
          </select>
        </label>
        <label>
          <input
            type="checkbox"
            checked={settings.planMode}
            disabled={disabled}
            onChange={(event) => void apply({ planMode: event.currentTarget.checked })}
          />
          Plan mode
        </label>
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
        <ContextMeter session={session} />
      </span>
    </fieldset>
  );
}

function ContextMeter({ session }: { session: SessionDetail }) {
  const window = session.usage.contextWindow;
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
      <span aria-hidden="true">{share === null ? '—' : `${Math.round(share * 100)}%`}</span>
    </span>
  );
}

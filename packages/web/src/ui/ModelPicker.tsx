import type { ModelCatalogue } from '@outrigger/host-api';
import { useEffect, useId, useState } from 'react';
import { useServices } from './appContext.ts';
import './composerControls.css';

export type ModelOption = ModelCatalogue['models'][number];

const OTHER = '\u0000other';

/**
 * The models Claude Code reported to the newest session that reported any (`GET /api/models`), for a session
 * that has not started; empty until one has. Nothing is made up: without a report only "Default" is offered.
 */
export function useKnownModels(enabled = true): readonly ModelOption[] {
  const { client } = useServices();
  const [models, setModels] = useState<readonly ModelOption[]>([]);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    client.call('listModels', {}).then(
      (catalogue) => live && setModels(catalogue.models),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [client, enabled]);
  return models;
}

/**
 * Which model a session runs: the models Claude Code offers, each with its description (the chosen one's is
 * shown beside the select), and "Other model id…" for a full model id it accepts. A model Claude Code rejects is
 * said here (`error`), where it was chosen. In a form the choice submits as `name`.
 */
export function ModelPicker({
  options,
  value,
  onChange,
  disabled = false,
  name,
  error,
  className,
}: {
  options: readonly ModelOption[];
  value: string;
  onChange: (model: string) => void;
  disabled?: boolean;
  name?: string;
  error?: string | null;
  className?: string;
}) {
  const hintId = useId();
  const errorId = useId();
  const selectId = useId();
  const listed = [
    ...(options.some((option) => option.value === 'default')
      ? []
      : [{ value: 'default', name: 'Default', description: 'The model Claude Code picks for your account.' }]),
    ...options,
  ];
  const known = listed.some((option) => option.value === value);
  const [custom, setCustom] = useState(!known);
  const [draft, setDraft] = useState(known ? '' : value);
  // A value the host settled on that Claude Code lists shows as that option again; after a refusal the id
  // typed stays in its field, to be corrected.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new value, not a re-render, ends "Other"
  useEffect(() => {
    if (known && !error) setCustom(false);
  }, [value]);
  const chosen = listed.find((option) => option.value === value);
  const hint = custom
    ? 'A full model id Claude Code accepts, such as claude-sonnet-4-5; one it rejects is refused with the reason.'
    : (chosen?.description ?? '');
  const describedBy = [hintId, error ? errorId : ''].filter(Boolean).join(' ');
  return (
    <div className={['picker', className].filter(Boolean).join(' ')}>
      <label htmlFor={selectId}>Model</label>
      <select
        id={selectId}
        className="select"
        value={custom ? OTHER : value}
        disabled={disabled}
        aria-describedby={describedBy}
        aria-invalid={error ? true : undefined}
        onChange={(event) => {
          const next = event.currentTarget.value;
          if (next === OTHER) {
            setCustom(true);
            return;
          }
          setCustom(false);
          onChange(next);
        }}
      >
        {listed.map((option) => (
          <option key={option.value} value={option.value}>
            {option.name}
          </option>
        ))}
        <option value={OTHER}>Other model id…</option>
      </select>
      {custom && (
        <span className="picker-custom">
          <label>
            <span className="sr-only">Model id</span>
            <input
              className="input"
              value={draft}
              disabled={disabled}
              spellCheck={false}
              placeholder="claude-sonnet-4-5"
              maxLength={200}
              aria-describedby={describedBy}
              aria-invalid={error ? true : undefined}
              onChange={(event) => {
                setDraft(event.currentTarget.value);
                if (name !== undefined) onChange(event.currentTarget.value.trim() || 'default');
              }}
              onKeyDown={(event) => {
                if (name === undefined && event.key === 'Enter' && draft.trim() !== '') {
                  event.preventDefault();
                  onChange(draft.trim());
                }
              }}
            />
          </label>
          {name === undefined && (
            <button
              type="button"
              className="btn btn-small"
              disabled={disabled || draft.trim() === ''}
              onClick={() => onChange(draft.trim())}
            >
              Use
            </button>
          )}
        </span>
      )}
      <span className="picker-hint" id={hintId} title={hint}>
        {hint}
      </span>
      {error ? (
        <span className="composer-error" id={errorId} role="alert">
          {error}
        </span>
      ) : null}
      {name !== undefined && <input type="hidden" name={name} value={custom ? draft.trim() || 'default' : value} />}
    </div>
  );
}

/** The model field of the new-session dialog: the known models, its own state, submitted as `name`. */
export function ModelField({ name, error }: { name: string; error: string | null }) {
  const options = useKnownModels();
  const [model, setModel] = useState('default');
  return (
    <ModelPicker className="field" options={options} value={model} onChange={setModel} name={name} error={error} />
  );
}

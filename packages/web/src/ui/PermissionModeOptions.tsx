import {
  type PatchSettingsBody,
  type PermissionMode,
  permissionModes,
  type SessionSettings,
} from '@outrigger/host-api';
import { useId, useState } from 'react';
import './composerControls.css';

/** Each mode in a word and a sentence, as Claude Code's own mode picker says them. */
export const permissionModeInfo: Readonly<Record<PermissionMode, { label: string; description: string }>> = {
  default: { label: 'Ask first', description: 'Claude asks before it edits a file or runs a command.' },
  acceptEdits: {
    label: 'Accept edits',
    description: 'File edits in the working directory go ahead without asking; commands still ask.',
  },
  plan: {
    label: 'Plan mode',
    description: 'Claude reads and proposes a plan; nothing changes until you approve it.',
  },
  auto: {
    label: 'Auto',
    description: 'Claude Code’s safety check approves routine actions and asks about risky ones.',
  },
  bypassPermissions: {
    label: 'Bypass permissions',
    description: 'Nothing asks: every tool runs. Only for a sandbox you trust.',
  },
};

/**
 * The one mode a session is in. Plan mode is a permission mode: `planMode` (an older switch of the same thing)
 * and `permissionMode: "plan"` both read as plan.
 */
export function modeOf(settings: Pick<SessionSettings, 'permissionMode' | 'planMode'>): PermissionMode {
  return settings.planMode ? 'plan' : settings.permissionMode;
}

/** A mode chosen: both fields agree, so leaving plan mode never leaves the old switch on. */
export function modeChange(mode: PermissionMode): PatchSettingsBody {
  return { permissionMode: mode, planMode: mode === 'plan' };
}

/** The options of a mode select, in words. */
export function PermissionModeOptions() {
  return permissionModes.map((mode) => (
    <option key={mode} value={mode}>
      {permissionModeInfo[mode].label}
    </option>
  ));
}

/**
 * The mode control: a select of the modes and the chosen one's sentence beside it (described by it). In a form
 * it submits as `permissionMode`.
 */
export function PermissionModePicker({
  value,
  onChange,
  disabled = false,
  name,
  className,
}: {
  value: PermissionMode;
  onChange: (mode: PermissionMode) => void;
  disabled?: boolean;
  name?: string;
  className?: string;
}) {
  const hintId = useId();
  const selectId = useId();
  return (
    <span className={['picker', className].filter(Boolean).join(' ')}>
      <label htmlFor={selectId}>Mode</label>
      <select
        id={selectId}
        className="select"
        name={name}
        value={value}
        disabled={disabled}
        aria-describedby={hintId}
        title={permissionModeInfo[value].description}
        onChange={(event) => onChange(event.currentTarget.value as PermissionMode)}
      >
        <PermissionModeOptions />
      </select>
      <span className="picker-hint" id={hintId}>
        {permissionModeInfo[value].description}
      </span>
    </span>
  );
}

/** The mode field of a form (the new-session dialog): its own state, submitted as `name`. */
export function PermissionModeField({ name, initial = 'default' }: { name: string; initial?: PermissionMode }) {
  const [mode, setMode] = useState<PermissionMode>(initial);
  return <PermissionModePicker className="field" name={name} value={mode} onChange={setMode} />;
}

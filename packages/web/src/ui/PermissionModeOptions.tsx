import { type PermissionMode, permissionModes } from '@outrigger/host-api';

const permissionModeLabels: Readonly<Record<PermissionMode, string>> = {
  default: 'Ask before tools run',
  acceptEdits: 'Accept file edits',
  plan: 'Plan first',
  auto: 'Auto',
  bypassPermissions: 'Never ask (bypass)',
};

/** How a session asks before tools run, in words: the options of the new-session dialog's and the settings bar's select. */
export function PermissionModeOptions() {
  return permissionModes.map((mode) => (
    <option key={mode} value={mode}>
      {permissionModeLabels[mode]}
    </option>
  ));
}

import type { PermissionMode } from '@anthropic-ai/claude-agent-sdk';

export interface BypassEnvironment {
  /** Effective user id of the sidecar; undefined where the platform has none (Windows). */
  euid: number | undefined;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * Claude Code refuses to skip permissions as root unless it is told it runs in a sandbox, and it
 * accepts exactly `IS_SANDBOX=1` as that signal; offering bypass it would then refuse is worse than
 * not offering it.
 */
export function canBypassPermissions({ euid, env }: BypassEnvironment): boolean {
  return euid !== 0 || env.IS_SANDBOX?.trim() === '1';
}

const PERMISSION_MODES: ReadonlySet<string> = new Set<PermissionMode>([
  'default',
  'acceptEdits',
  'bypassPermissions',
  'plan',
  'dontAsk',
  'auto',
]);

/**
 * The permission mode a host asks for, as this sidecar runs it: `dontAsk` would deny every prompt
 * the host is there to answer, so it runs as `default`; bypass is downgraded when it is not allowed;
 * an unknown or empty id is `default`.
 */
export function mapPermissionMode(requested: string, bypassAllowed: boolean): PermissionMode {
  const mode = requested.trim();
  if (!PERMISSION_MODES.has(mode) || mode === 'dontAsk') return 'default';
  if (mode === 'bypassPermissions' && !bypassAllowed) return 'default';
  return mode as PermissionMode;
}

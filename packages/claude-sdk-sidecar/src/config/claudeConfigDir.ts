import { homedir } from 'node:os';
import { join } from 'node:path';

/** The Claude config dir a `CLAUDE_CONFIG_DIR` value names: the value trimmed, or `~/.claude` when unset or blank. */
export function claudeConfigDir(configured: string | undefined): string {
  return configured?.trim() || join(homedir(), '.claude');
}

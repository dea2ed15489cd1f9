import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository runs its TypeScript sources; an installed package runs the built bundle. That one fact
 * decides where the host keeps its files by default and where a new session starts.
 */
export const RUNS_FROM_SOURCES = import.meta.url.endsWith('.ts');

/** `.data` in the repository, shared by `npm start`, the terminal chat and `token rotate`. */
export const REPOSITORY_DATA_DIR = fileURLToPath(new URL('../../../../.data', import.meta.url));

/** Overrides the default data directory (a `--data-dir` still wins). */
export const DATA_DIR_VARIABLE = 'OUTRIGGER_DATA_DIR';

export interface InstallationContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly platform: NodeJS.Platform;
  readonly home: string;
  readonly fromSources: boolean;
}

const CURRENT: InstallationContext = {
  env: process.env,
  platform: process.platform,
  home: homedir(),
  fromSources: RUNS_FROM_SOURCES,
};

/** The platform's per-user data directory for Outrigger (XDG on Linux and the BSDs). */
export function platformDataDir(context: Omit<InstallationContext, 'fromSources'> = CURRENT): string {
  const { env, platform, home } = context;
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Outrigger');
  if (platform === 'win32') {
    const local = env.LOCALAPPDATA;
    return join(local !== undefined && isAbsolute(local) ? local : join(home, 'AppData', 'Local'), 'Outrigger');
  }
  // The XDG spec: a relative $XDG_DATA_HOME is invalid and must be ignored.
  const xdg = env.XDG_DATA_HOME;
  return join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(home, '.local', 'share'), 'outrigger');
}

/** `$OUTRIGGER_DATA_DIR`, else the repository's `.data` when run from it, else the platform's data directory. */
export function defaultDataDir(context: InstallationContext = CURRENT): string {
  const given = context.env[DATA_DIR_VARIABLE];
  if (given !== undefined && given.trim() !== '') return given;
  return context.fromSources ? REPOSITORY_DATA_DIR : platformDataDir(context);
}

/**
 * Where a new session starts when the request names no directory: an installed `outrigger serve` starts them
 * where it was started (the project the user is in); the repository keeps its own scratch workspace under
 * the data directory, so the demo never writes into the checkout.
 */
export function defaultSessionCwd(startedIn: string, fromSources: boolean = RUNS_FROM_SOURCES): string | undefined {
  return fromSources ? undefined : startedIn;
}

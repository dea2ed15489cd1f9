import { appendFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';

/*
 * Preloaded (NODE_OPTIONS=--import) into the processes of a no-shell test: every child_process function is
 * wrapped to append one record per call to the file named by OUTRIGGER_SPAWN_RECORD (read at each call;
 * unset, nothing is recorded), then called as usual.
 * A record holds the program and whether a shell was asked for, never the arguments (they may hold a prompt).
 * The builtin's ESM exports are synced, so modules importing `spawn` by name call the wrapper too.
 */

export const SPAWN_RECORD_ENV = 'OUTRIGGER_SPAWN_RECORD';

if (process.env[SPAWN_RECORD_ENV]) {
  const childProcess = createRequire(import.meta.url)('node:child_process') as Record<string, unknown>;
  for (const fn of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
    const original = childProcess[fn] as (...args: unknown[]) => unknown;
    childProcess[fn] = function recorded(this: unknown, ...args: unknown[]) {
      const recordFile = process.env[SPAWN_RECORD_ENV];
      if (!recordFile) return original.apply(this, args);
      const [file, second, third] = args;
      const options = Array.isArray(second) ? third : second;
      const shell =
        typeof options === 'object' && options !== null ? (options as { shell?: unknown }).shell : undefined;
      appendFileSync(
        recordFile,
        `${JSON.stringify({ pid: process.pid, argv1: process.argv[1] ?? '', fn, file: String(file), shell: shell ?? null })}\n`,
      );
      return original.apply(this, args);
    };
  }
  syncBuiltinESMExports();
}

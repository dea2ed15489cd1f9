import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package directory, which the build's input paths are relative to. */
export const SIDECAR_PACKAGE_DIR = fileURLToPath(new URL('../../', import.meta.url));

/** The sidecar's TypeScript entry: runs directly on Node ≥ 22.18, for development. */
export const SIDECAR_SOURCE_ENTRY = fileURLToPath(new URL('../main.ts', import.meta.url));

/** The built single-file entry (`npm run build`), what hosts, the CLI and the process-level tests run. */
export const SIDECAR_BUILT_ENTRY = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** Written beside the built entry by the build, last: what it was built from and when. */
export const SIDECAR_BUILD_INFO = fileURLToPath(new URL('../../dist/build-info.json', import.meta.url));

export interface SidecarBuildInfo {
  /** When the build started reading its inputs (ms since the epoch): a later change is not in it. */
  readonly startedAtMs: number;
  /** The files it was built from, relative to the package, without `node_modules` (npm install rebuilds). */
  readonly inputs: readonly string[];
}

/** Where a build lives; the package's own by default, elsewhere in tests. */
export interface SidecarBuildPaths {
  readonly entry: string;
  readonly buildInfo: string;
  /** What the build info's input paths are relative to. */
  readonly packageDir: string;
}

const PACKAGE_BUILD: SidecarBuildPaths = {
  entry: SIDECAR_BUILT_ENTRY,
  buildInfo: SIDECAR_BUILD_INFO,
  packageDir: SIDECAR_PACKAGE_DIR,
};

export type BuiltSidecarState =
  | { readonly fresh: true; readonly entry: string }
  | { readonly fresh: false; readonly entry: string; readonly reason: string };

/**
 * Whether the built entry exists and is at least as new as every source file it was built from. An input
 * that no longer exists is not held against it (a copy without the sources runs as it is; a deleted module
 * shows as a change in the file that imported it).
 */
export async function builtSidecarState(paths: SidecarBuildPaths = PACKAGE_BUILD): Promise<BuiltSidecarState> {
  const { entry } = paths;
  let info: SidecarBuildInfo;
  try {
    await stat(entry);
  } catch {
    return { fresh: false, entry, reason: `${entry} is missing` };
  }
  try {
    info = JSON.parse(await readFile(paths.buildInfo, 'utf8')) as SidecarBuildInfo;
  } catch {
    return { fresh: false, entry, reason: `${paths.buildInfo} is missing or unreadable` };
  }
  const changed = await Promise.all(
    info.inputs.map(async (input) => {
      const modified = await stat(join(paths.packageDir, input)).then(
        (stats) => stats.mtimeMs,
        () => 0,
      );
      return modified > info.startedAtMs ? input : undefined;
    }),
  );
  const newer = changed.find((input) => input !== undefined);
  return newer === undefined
    ? { fresh: true, entry }
    : { fresh: false, entry, reason: `${join(paths.packageDir, newer)} changed after the sidecar was built` };
}

/** The built entry, or a clear error when it is missing or older than its sources. */
export async function builtSidecarEntry(paths: SidecarBuildPaths = PACKAGE_BUILD): Promise<string> {
  const state = await builtSidecarState(paths);
  if (!state.fresh) throw new SidecarNotBuiltError(state.reason);
  return state.entry;
}

export class SidecarNotBuiltError extends Error {
  override readonly name = 'SidecarNotBuiltError';

  constructor(reason: string) {
    super(`the built sidecar cannot be used: ${reason}; run \`npm run build\` in the repository`);
  }
}

import { execFile } from 'node:child_process';
import { access, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { builtSidecarEntry } from '../packages/claude-sdk-sidecar/src/process/sidecarEntry.ts';
import { compileLibraries, LIBRARY_FOLDERS } from './stage/compileLibraries.ts';
import { stageLibrary } from './stage/libraryPackage.ts';
import { stageOutrigger } from './stage/outriggerPackage.ts';
import { stageSidecar } from './stage/sidecarPackage.ts';
import { workspacePath } from './workspace.ts';

const run = promisify(execFile);

/** One file of a tarball, as `npm pack --json` lists it. */
export interface TarballFile {
  readonly path: string;
  readonly size: number;
}

export interface ReleaseTarball {
  readonly name: string;
  readonly version: string;
  /** The `.tgz`, in the output directory. */
  readonly file: string;
  /** The staged directory it was packed from (`outDir/stage/…`). */
  readonly stagedDir: string;
  /** Compressed. */
  readonly bytes: number;
  readonly unpackedBytes: number;
  readonly files: readonly TarballFile[];
}

interface NpmPackEntry {
  readonly name: string;
  readonly version: string;
  readonly filename: string;
  readonly size: number;
  readonly unpackedSize: number;
  readonly files: readonly TarballFile[];
}

/**
 * Every public package of the set, staged under `outDir/stage/` from what `npm run build` made and packed into
 * `outDir/*.tgz` by `npm pack`: `outrigger`, `@outrigger/claude-sdk-sidecar`, `@outrigger/protocol` and
 * `@outrigger/host-api`. The builds must be current; a stale sidecar is an error, not a silent old bundle.
 */
export async function packRelease(outDir: string): Promise<ReleaseTarball[]> {
  await builtSidecarEntry();
  await access(workspacePath('web', 'dist', 'index.html')).catch(() => {
    throw new Error('the web UI is not built: run npm run build');
  });
  const stageDir = join(outDir, 'stage');
  await rm(stageDir, { recursive: true, force: true });
  await mkdir(stageDir, { recursive: true });
  const compiled = join(outDir, 'compiled');
  await rm(compiled, { recursive: true, force: true });
  compileLibraries(compiled);
  const staged = [
    await stageOutrigger(stageDir),
    await stageSidecar(stageDir),
    ...(await Promise.all(LIBRARY_FOLDERS.map((folder) => stageLibrary(folder, compiled, stageDir)))),
  ];
  const tarballs: ReleaseTarball[] = [];
  for (const dir of staged) tarballs.push(await npmPack(dir, outDir));
  return tarballs;
}

async function npmPack(dir: string, outDir: string): Promise<ReleaseTarball> {
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', outDir], {
    cwd: dir,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [entry] = JSON.parse(stdout) as NpmPackEntry[];
  if (entry === undefined) throw new Error(`npm pack in ${dir} listed no tarball`);
  return {
    name: entry.name,
    version: entry.version,
    file: join(outDir, entry.filename),
    stagedDir: dir,
    bytes: entry.size,
    unpackedBytes: entry.unpackedSize,
    files: entry.files.map(({ path, size }) => ({ path, size })),
  };
}

import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Metafile } from 'esbuild';
import {
  SIDECAR_BUILD_INFO,
  SIDECAR_BUILT_ENTRY,
  SIDECAR_PACKAGE_DIR,
  type SidecarBuildInfo,
} from '../src/process/sidecarEntry.ts';

/** Left out of the bundle: it is loaded on first use (src/config/claudeAgentSdk.ts) and ships its own binary. */
export const EXTERNAL_PACKAGES = ['@anthropic-ai/claude-agent-sdk'];

const SCRIPT_PATH = fileURLToPath(import.meta.url);

export interface SidecarBuildResult {
  entry: string;
  durationMs: number;
  bytes: number;
  inputs: number;
  /** The static and dynamic imports the entry leaves to Node: built-ins and `EXTERNAL_PACKAGES`. */
  imports: Metafile['outputs'][string]['imports'];
}

/**
 * Bundles the sidecar into one ESM file, `dist/main.js`, plus the session-reader worker it starts from a file
 * (`dist/sessionSdkWorker.js`). Each file is written beside its place and renamed into it, and
 * `dist/build-info.json` comes last, so a reader never runs half a build and two builds at once (test files
 * run in parallel) both leave a whole one.
 */
export async function buildSidecar(): Promise<SidecarBuildResult> {
  const startedAtMs = Date.now();
  const started = performance.now();
  const outdir = dirname(SIDECAR_BUILT_ENTRY);
  const result = await build({
    absWorkingDir: SIDECAR_PACKAGE_DIR,
    entryPoints: { main: 'src/main.ts', sessionSdkWorker: 'src/fork/sessionSdkWorker.ts' },
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22.18',
    external: EXTERNAL_PACKAGES,
    // Whitespace and syntax only: names stay readable in stack traces without source maps.
    minifyWhitespace: true,
    minifySyntax: true,
    sourcemap: 'linked',
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  await mkdir(outdir, { recursive: true });
  const suffix = `.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await Promise.all(
    result.outputFiles.map(async (file) => {
      await writeFile(file.path + suffix, file.contents, { mode: file.path.endsWith('.js') ? 0o755 : 0o644 });
      await rename(file.path + suffix, file.path);
    }),
  );
  const inputs = Object.keys(result.metafile.inputs).filter((input) => !input.split('/').includes('node_modules'));
  const info: SidecarBuildInfo = { startedAtMs, inputs: [...inputs, relative(SIDECAR_PACKAGE_DIR, SCRIPT_PATH)] };
  await writeFile(SIDECAR_BUILD_INFO + suffix, `${JSON.stringify(info, null, 2)}\n`);
  await rename(SIDECAR_BUILD_INFO + suffix, SIDECAR_BUILD_INFO);

  const output = result.metafile.outputs[relative(SIDECAR_PACKAGE_DIR, SIDECAR_BUILT_ENTRY)];
  if (output === undefined) throw new Error('the build wrote no dist/main.js');
  return {
    entry: SIDECAR_BUILT_ENTRY,
    durationMs: performance.now() - started,
    bytes: output.bytes,
    inputs: Object.keys(output.inputs).length,
    imports: output.imports,
  };
}

if (process.argv[1] === SCRIPT_PATH) {
  const built = await buildSidecar();
  const where = relative(process.cwd(), built.entry) || built.entry;
  process.stdout.write(
    `built ${where} (${Math.round(built.bytes / 1024)} KiB from ${built.inputs} modules) in ${Math.round(built.durationMs)} ms\n`,
  );
}

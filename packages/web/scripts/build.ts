import { writeFileSync } from 'node:fs';
import { build } from 'vite';
import { distDir, isWebBuildStale, sourceDigest, stampPath, webDir } from './buildState.ts';

/**
 * `npm run build -w @outrigger/web`: builds the UI into `packages/web/dist` when it is missing or
 * stale (sources changed since the last build), so `npm start` can call it every time; `--force`
 * builds regardless.
 */
export async function buildWeb(options: { force?: boolean; quiet?: boolean } = {}): Promise<boolean> {
  if (options.force !== true && !isWebBuildStale()) return false;
  const digest = sourceDigest();
  await build({
    root: webDir,
    logLevel: options.quiet === true ? 'warn' : 'info',
    configFile: `${webDir}/vite.config.ts`,
  });
  writeFileSync(stampPath(), `${digest}\n`);
  return true;
}

if (import.meta.main) {
  const built = await buildWeb({ force: process.argv.includes('--force') });
  if (!built) process.stdout.write(`web UI is up to date (${distDir})\n`);
}

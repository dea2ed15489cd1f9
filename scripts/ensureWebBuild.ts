// `npm start` runs this before `outrigger serve`: it builds the web UI when its build is missing or older
// than its sources, so a fresh clone opens a working page. While packages/web has no `build` script yet
// (the UI is being built on another branch), it does nothing and the host serves its "not built" page.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = fileURLToPath(new URL('../packages/web', import.meta.url));
const built = join(web, 'dist', 'index.html');

/** Newest modification time under the paths that feed the build (node_modules and the build itself excluded). */
function newestSource(path: string): number {
  if (!existsSync(path)) return 0;
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    newest = Math.max(newest, newestSource(join(path, entry)));
  }
  return newest;
}

const manifest = JSON.parse(readFileSync(join(web, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
if (manifest.scripts?.build !== undefined) {
  const stale = !existsSync(built) || statSync(built).mtimeMs < newestSource(web);
  if (stale) {
    process.stderr.write('npm start: building the web UI (packages/web)…\n');
    const result = spawnSync('npm', ['run', '--silent', 'build', '-w', 'packages/web'], { stdio: 'inherit' });
    if (result.status !== 0) {
      process.stderr.write('npm start: the web UI did not build; the host will say so on its page\n');
    }
  }
}

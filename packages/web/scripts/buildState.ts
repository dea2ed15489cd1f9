import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The web package's folder, and the repository root above it. */
export const webDir = fileURLToPath(new URL('..', import.meta.url));
const repoDir = join(webDir, '..', '..');

export const distDir = join(webDir, 'dist');
const stampFile = join(distDir, '.build-stamp');

/**
 * Everything the bundle is made of: the UI's sources, config and `public/` files (copied as they are), the
 * contract packages it imports, the lockfile.
 */
function inputs(): string[] {
  const files = [
    join(webDir, 'index.html'),
    join(webDir, 'vite.config.ts'),
    join(webDir, 'package.json'),
    join(repoDir, 'package-lock.json'),
  ];
  for (const dir of [
    join(webDir, 'src'),
    join(webDir, 'public'),
    join(repoDir, 'packages', 'host-api', 'src'),
    join(repoDir, 'packages', 'protocol', 'src'),
  ])
    files.push(...walk(dir));
  return files
    .filter((file) => !/\.test\.tsx?$/.test(file) && !file.includes(`${join('src', 'data', 'testing')}`))
    .sort();
}

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? walk(path) : [path];
  });
}

/** A digest of the inputs' paths and contents. */
export function sourceDigest(): string {
  const hash = createHash('sha256');
  for (const file of inputs()) {
    hash.update(relative(repoDir, file));
    hash.update('\0');
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** True when `dist/` is missing or was built from other sources than the ones on disk now. */
export function isWebBuildStale(): boolean {
  if (!existsSync(join(distDir, 'index.html')) || !existsSync(stampFile)) return true;
  return readFileSync(stampFile, 'utf8').trim() !== sourceDigest();
}

export function stampPath(): string {
  return stampFile;
}

export function builtAt(): Date | null {
  return existsSync(stampFile) ? statSync(stampFile).mtime : null;
}

import { chmod, cp, mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** What a published manifest says; staged packages carry no scripts, so `npm pack` and install run nothing of ours. */
export interface PublishedManifest {
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly license: string;
  readonly type: 'module';
  readonly engines: { readonly node: string };
  readonly bin?: Readonly<Record<string, string>>;
  readonly exports?: Readonly<Record<string, unknown>>;
  readonly dependencies: Readonly<Record<string, string>>;
  readonly repository?: { readonly type: 'git'; readonly url: string };
}

export async function writeManifest(dir: string, manifest: PublishedManifest): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Never shipped, wherever they turn up in a copied tree. */
function isShippable(path: string): boolean {
  const name = basename(path);
  if (name.endsWith('.map') || name.endsWith('.tsbuildinfo')) return false;
  if (/\.test\.[cm]?[jt]s$/.test(name)) return false;
  return !['.compile-cache', '.build-stamp', 'build-info.json', '.data', 'test-output'].includes(name);
}

/** A built folder into the staged package, without source maps, test files, caches or build stamps. */
export async function copyBuilt(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  await cp(from, to, { recursive: true, filter: isShippable });
}

export async function copyFile(from: string, to: string, mode?: number): Promise<void> {
  await mkdir(dirname(to), { recursive: true });
  await cp(from, to);
  if (mode !== undefined) await chmod(to, mode);
}

/** The versions every workspace package pins, for a published manifest's `dependencies`. */
export function pinned(names: readonly string[], versionOf: (name: string) => string): Record<string, string> {
  return Object.fromEntries([...new Set(names)].sort().map((name) => [name, versionOf(name)]));
}

import { join } from 'node:path';
import { pinnedVersion, readWorkspaceManifest, workspacePath } from '../workspace.ts';
import type { LibraryFolder } from './compileLibraries.ts';
import { copyBuilt, copyFile, type PublishedManifest, pinned, writeManifest } from './stagedFiles.ts';

/** `./src/index.ts` → the compiled module and its declarations under `lib/`. */
function publishedExport(source: string): { types: string; default: string } {
  const module = source.replace(/^\.\/src\//, './lib/').replace(/\.ts$/, '');
  return { types: `${module}.d.ts`, default: `${module}.js` };
}

/**
 * A library as published: `lib/` (the compiled sources from `compileLibraries`, in `compiled/<folder>/src`),
 * `schema/` (its JSON Schema), its README, and the exports of the workspace package except the test-only
 * `./testing`, each with its declarations first.
 */
export async function stageLibrary(folder: LibraryFolder, compiled: string, stageDir: string): Promise<string> {
  const source = readWorkspaceManifest(folder);
  const dir = join(stageDir, folder);
  await copyBuilt(join(compiled, folder, 'src'), join(dir, 'lib'));
  await copyBuilt(workspacePath(folder, 'schema'), join(dir, 'schema'));
  await copyFile(workspacePath(folder, 'README.md'), join(dir, 'README.md'));
  const exports = Object.fromEntries(
    Object.entries(source.exports ?? {})
      .filter(([subpath]) => subpath !== './testing')
      .map(([subpath, file]) => [subpath, publishedExport(file)]),
  );
  const manifest: PublishedManifest = {
    name: source.name,
    version: source.version,
    description: source.description ?? '',
    license: readWorkspaceManifest('').license ?? 'Apache-2.0',
    type: 'module',
    engines: { node: '>=20' },
    exports: { ...exports, './package.json': './package.json' },
    dependencies: pinned(Object.keys(source.dependencies ?? {}), (name) =>
      name.startsWith('@outrigger/') ? source.version : pinnedVersion(name),
    ),
  };
  await writeManifest(dir, manifest);
  return dir;
}

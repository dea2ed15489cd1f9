import { join } from 'node:path';
import { EXTERNAL_PACKAGES } from '../../packages/claude-sdk-sidecar/scripts/build.ts';
import { bundleCli } from '../bundleCli.ts';
import { REQUIRED_NODE } from '../launcher/nodeRequirement.ts';
import { pinnedVersion, REPOSITORY_DIR, readWorkspaceManifest, workspacePath } from '../workspace.ts';
import { SDK_PEERS } from './sidecarPackage.ts';
import { copyBuilt, copyFile, type PublishedManifest, pinned, writeManifest } from './stagedFiles.ts';

/**
 * `outrigger` as published, laid out as `bin/packageLayout.ts` expects it:
 *
 *     dist/outrigger.js   the bin: checks the Node version, then loads dist/cli.js
 *     dist/…              the CLI, host and demo model, bundled (bin/outrigger.ts and what it imports)
 *     sidecar/            the sidecar's built bundle, which the host spawns
 *     web/                the web UI's build
 *     scenarios/          the demo model's script (mock-anthropic's scenarioPack reads ../scenarios/)
 *
 * Its dependencies are what the bundles leave to node_modules, pinned as the workspace pins them: nothing is
 * built at install time and no dev dependency comes along.
 */
export async function stageOutrigger(stageDir: string): Promise<string> {
  const dir = join(stageDir, 'outrigger');
  const root = readWorkspaceManifest('');
  const bundle = await bundleCli(join(dir, 'dist'));
  await copyBuilt(workspacePath('claude-sdk-sidecar', 'dist'), join(dir, 'sidecar'));
  await copyBuilt(workspacePath('web', 'dist'), join(dir, 'web'));
  await copyBuilt(workspacePath('mock-anthropic', 'scenarios'), join(dir, 'scenarios'));
  await copyFile(join(REPOSITORY_DIR, 'README.md'), join(dir, 'README.md'));
  await copyFile(join(REPOSITORY_DIR, 'CHANGELOG.md'), join(dir, 'CHANGELOG.md'));
  const manifest: PublishedManifest = {
    name: root.name,
    version: root.version,
    description: root.description ?? '',
    license: root.license ?? 'Apache-2.0',
    type: 'module',
    engines: { node: `>=${REQUIRED_NODE}` },
    bin: { outrigger: 'dist/outrigger.js' },
    exports: { './package.json': './package.json' },
    dependencies: pinned([...bundle.externalPackages, ...EXTERNAL_PACKAGES, ...SDK_PEERS], pinnedVersion),
  };
  await writeManifest(dir, manifest);
  return dir;
}

import { join } from 'node:path';
import { EXTERNAL_PACKAGES } from '../../packages/claude-sdk-sidecar/scripts/build.ts';
import { pinnedVersion, REPOSITORY_DIR, readWorkspaceManifest, releaseVersion, workspacePath } from '../workspace.ts';
import { copyBuilt, copyFile, type PublishedManifest, pinned, writeManifest } from './stagedFiles.ts';

/** What the SDK asks of the package that installs it (its peer dependencies), beside the SDK itself. */
export const SDK_PEERS = ['@anthropic-ai/sdk', '@modelcontextprotocol/sdk', 'zod'];

/**
 * `@outrigger/claude-sdk-sidecar` as published: the built bundle (`dist/main.js`, `dist/sidecar.js`, the
 * session-reader worker), the `claude-sdk-sidecar` bin on it, the JSON Schema and the protocol document, and
 * a README for hosts in any language. The SDK stays a dependency: it carries Claude Code's native binary.
 */
export async function stageSidecar(stageDir: string): Promise<string> {
  const dir = join(stageDir, 'claude-sdk-sidecar');
  const source = readWorkspaceManifest('claude-sdk-sidecar');
  await copyBuilt(workspacePath('claude-sdk-sidecar', 'dist'), join(dir, 'dist'));
  await copyFile(join(REPOSITORY_DIR, 'release', 'readmes', 'claude-sdk-sidecar.md'), join(dir, 'README.md'));
  await copyFile(join(REPOSITORY_DIR, 'docs', 'protocol.md'), join(dir, 'PROTOCOL.md'));
  await copyFile(
    workspacePath('protocol', 'schema', 'sidecar-protocol.schema.json'),
    join(dir, 'schema', 'sidecar-protocol.schema.json'),
  );
  const manifest: PublishedManifest = {
    name: source.name,
    version: releaseVersion(),
    description: source.description ?? '',
    license: readWorkspaceManifest('').license ?? 'Apache-2.0',
    type: 'module',
    // The bundle targets Node 20 and is run there by test/node20.test.ts.
    engines: { node: '>=20' },
    bin: { 'claude-sdk-sidecar': 'dist/main.js' },
    exports: { './package.json': './package.json' },
    dependencies: pinned([...EXTERNAL_PACKAGES, ...SDK_PEERS], pinnedVersion),
  };
  await writeManifest(dir, manifest);
  return dir;
}

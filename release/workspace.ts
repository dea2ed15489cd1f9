import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPOSITORY_DIR = fileURLToPath(new URL('../', import.meta.url));

export interface WorkspaceManifest {
  readonly name: string;
  readonly version: string;
  readonly description?: string;
  readonly license?: string;
  readonly private?: boolean;
  /** Subpath → source module, as the workspace resolves it. */
  readonly exports?: Readonly<Record<string, string>>;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
}

/** The workspace packages by folder under `packages/`, and the root one as `''`. */
export const WORKSPACE_FOLDERS = [
  '',
  'protocol',
  'host-api',
  'claude-sdk-sidecar',
  'mock-anthropic',
  'host',
  'acp',
  'web',
];

export function workspacePath(folder: string, ...rest: string[]): string {
  return fileURLToPath(
    new URL(['..', ...(folder === '' ? [] : ['packages', folder]), ...rest].join('/'), import.meta.url),
  );
}

export function readWorkspaceManifest(folder: string): WorkspaceManifest {
  return JSON.parse(readFileSync(workspacePath(folder, 'package.json'), 'utf8')) as WorkspaceManifest;
}

/** The one version of the set: the root package's. */
export function releaseVersion(): string {
  return readWorkspaceManifest('').version;
}

/**
 * Every disagreement with "one version for the set": a package whose version differs from the root's, or that
 * pins one of ours at another version.
 */
export function versionMismatches(
  manifests: readonly WorkspaceManifest[] = WORKSPACE_FOLDERS.map(readWorkspaceManifest),
): string[] {
  const version = manifests.find((manifest) => manifest.name === 'outrigger')?.version ?? releaseVersion();
  const problems: string[] = [];
  for (const manifest of manifests) {
    if (manifest.version !== version)
      problems.push(`${manifest.name} is at ${manifest.version}, the set at ${version}`);
    for (const [name, pinned] of Object.entries({ ...manifest.dependencies, ...manifest.devDependencies })) {
      if (name.startsWith('@outrigger/') && pinned !== version) {
        problems.push(`${manifest.name} pins ${name}@${pinned}, the set is at ${version}`);
      }
    }
  }
  return problems;
}

/** The version every workspace package pins for a third-party dependency (the first that names it). */
export function pinnedVersion(name: string): string {
  for (const folder of WORKSPACE_FOLDERS) {
    const manifest = readWorkspaceManifest(folder);
    const pinned = manifest.dependencies?.[name] ?? manifest.devDependencies?.[name];
    if (pinned !== undefined) return pinned;
  }
  throw new Error(`no workspace package depends on ${name}`);
}

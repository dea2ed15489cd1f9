import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { REQUIRED_NODE } from '../../release/launcher/nodeRequirement.ts';
import { REPOSITORY_DIR } from '../../release/workspace.ts';
import { boundaryVersions, compareVersions, parseVersion, satisfies, type Version } from './nodeRange.ts';

/*
 * Two Nodes are involved in running Outrigger from the repository. The system's Node runs npm itself
 * (`npm install`, `npm start`, `npx outrigger`); every script and bin npm starts then runs on the Node 24
 * that `npm install` brings as the `node` dev dependency (npm puts node_modules/.bin first on PATH). So
 * the root `engines.node` is what the install needs of the system's Node, no more: npm checks it, and
 * every installed package's own `engines`, against the Node that runs npm, and warns ("Unsupported
 * engine") on a mismatch. What the product needs (node:sqlite, type stripping) is the launcher's
 * REQUIRED_NODE, checked where the product runs: on the dev dependency here, by the installed package's
 * launcher and engines elsewhere.
 */

interface LockEntry {
  readonly version?: string;
  readonly link?: boolean;
  readonly resolved?: string;
  readonly engines?: { readonly node?: string };
  readonly os?: readonly string[];
  readonly cpu?: readonly string[];
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
}

interface Manifest {
  readonly name: string;
  readonly engines?: { readonly node?: string };
  readonly devDependencies?: Readonly<Record<string, string>>;
}

const readJson = <T>(...path: string[]): T => JSON.parse(readFileSync(join(REPOSITORY_DIR, ...path), 'utf8')) as T;
const root = readJson<Manifest>('package.json');
const lock = readJson<{ packages: Record<string, LockEntry> }>('package-lock.json').packages;
const workspaces = readdirSync(join(REPOSITORY_DIR, 'packages'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => ({
    folder: `packages/${entry.name}`,
    manifest: readJson<Manifest>('packages', entry.name, 'package.json'),
  }));
const rootRange = root.engines?.node ?? '';

/** The platforms the README supports; the SDK ships Claude Code for these. */
const PLATFORMS = [
  { os: 'linux', cpu: 'x64' },
  { os: 'linux', cpu: 'arm64' },
  { os: 'darwin', cpu: 'x64' },
  { os: 'darwin', cpu: 'arm64' },
] as const;

function allows(list: readonly string[] | undefined, value: string): boolean {
  if (!list || list.length === 0) return true;
  if (list.includes(`!${value}`)) return false;
  const positive = list.filter((item) => !item.startsWith('!'));
  return positive.length === 0 || positive.includes(value);
}

/** Where node resolves `name` from the package at `path` in the lockfile: its own node_modules, then up. */
function resolveFrom(path: string, name: string): string | undefined {
  let at = path;
  for (;;) {
    const candidate = `${at === '' ? '' : `${at}/`}node_modules/${name}`;
    if (lock[candidate]) return candidate;
    if (at === '') return undefined;
    const nested = at.lastIndexOf('node_modules/');
    at = nested <= 0 ? '' : at.slice(0, nested - 1);
  }
}

/** The lockfile entries npm installs on `platform`: from the root and the workspaces down, other platforms' binaries left out. */
function installedOn(platform: (typeof PLATFORMS)[number]): Set<string> {
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path)) return;
    const entry = lock[path];
    if (!entry) return;
    if (entry.link && entry.resolved !== undefined) return visit(entry.resolved);
    if (!allows(entry.os, platform.os) || !allows(entry.cpu, platform.cpu)) return;
    seen.add(path);
    const isProject = path === '' || !path.includes('node_modules/');
    const names = [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.optionalDependencies ?? {}),
      ...Object.keys(entry.peerDependencies ?? {}),
      ...(isProject ? Object.keys(entry.devDependencies ?? {}) : []),
    ];
    for (const name of names) {
      const found = resolveFrom(path, name);
      if (found) visit(found);
    }
  };
  visit('');
  for (const { folder } of workspaces) visit(folder);
  return seen;
}

const installed = new Set(PLATFORMS.flatMap((platform) => [...installedOn(platform)]));
/** Every installed package's `engines.node`, the workspaces' included, the root's left out. */
const packageRanges = [...installed]
  .filter((path) => path !== '')
  .flatMap((path) => {
    const range = lock[path]?.engines?.node;
    return range === undefined ? [] : [{ path, range }];
  });

/** The versions the root accepts, one per stretch in which no range changes its answer. */
const acceptedByRoot: Version[] = boundaryVersions([rootRange, ...packageRanges.map(({ range }) => range)]).filter(
  (version) => satisfies(version, rootRange),
);

test('the lockfile is read: the installed tree holds the web build and the SDK, not other platforms', () => {
  assert.ok(installed.has('node_modules/vite'), 'vite');
  assert.ok(installed.has('node_modules/@anthropic-ai/claude-agent-sdk'), 'the SDK');
  assert.ok(installed.has('packages/host'), 'a workspace');
  assert.equal(installed.has('node_modules/@rolldown/binding-win32-x64-msvc'), false, 'a Windows binary');
  assert.ok(packageRanges.length > 20, `only ${packageRanges.length} engines ranges found`);
  assert.equal(lock['']?.engines?.node, rootRange, 'package-lock.json holds the root engines of package.json');
});

test('npm install is quiet on every Node the root engines accepts: each installed package accepts it too', () => {
  assert.notEqual(rootRange, '', 'the root states engines.node');
  assert.ok(acceptedByRoot.length > 0, `the root range ${rootRange} accepts no version`);
  const unsupported = acceptedByRoot.flatMap((version) =>
    packageRanges
      .filter(({ range }) => !satisfies(version, range))
      .map(({ path, range }) => `Node ${version.join('.')}: ${path} needs ${range}`),
  );
  assert.deepEqual(unsupported, [], `the root engines.node ${rootRange} claims Nodes its packages warn about`);
});

test('the root engines are no narrower than what the install needs: the oldest Node every package accepts is accepted', () => {
  const everyPackage = boundaryVersions(packageRanges.map(({ range }) => range)).filter((version) =>
    packageRanges.every(({ range }) => satisfies(version, range)),
  );
  const oldest = everyPackage[0];
  assert.ok(oldest, 'some Node satisfies every installed package');
  assert.ok(satisfies(oldest, rootRange), `Node ${oldest.join('.')} installs the tree, yet ${rootRange} refuses it`);
});

test('Node 20, which the README says works, is accepted, and the README states the range as the manifest does', () => {
  assert.ok(satisfies(parseVersion('20.19.0'), rootRange), `${rootRange} refuses Node 20.19`);
  assert.ok(satisfies(parseVersion('20.20.2'), rootRange), `${rootRange} refuses Node 20.20`);
  const readme = readFileSync(join(REPOSITORY_DIR, 'README.md'), 'utf8');
  const requirements = readme.slice(readme.indexOf('## Requirements'));
  assert.ok(requirements.includes(`\`${rootRange}\``), `README's Requirements do not state engines.node ${rootRange}`);
  assert.match(requirements, /Node 20/);
});

test('no workspace package states engines of its own that the install would warn about', () => {
  for (const { folder, manifest } of workspaces) {
    const range = manifest.engines?.node;
    if (range === undefined) continue;
    for (const version of acceptedByRoot) {
      assert.ok(satisfies(version, range), `${folder} needs ${range}, the root accepts Node ${version.join('.')}`);
    }
  }
});

test('the Node the repository runs its scripts on is one the product supports', () => {
  const bundled = parseVersion(root.devDependencies?.node ?? '');
  const required = parseVersion(REQUIRED_NODE);
  assert.ok(
    compareVersions(bundled, required) >= 0,
    `the node dev dependency ${bundled.join('.')} is older than the product's ${REQUIRED_NODE}`,
  );
});

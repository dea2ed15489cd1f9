import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { builtSidecarEntry, builtSidecarState, type SidecarBuildPaths, SidecarNotBuiltError } from './sidecarEntry.ts';

describe('builtSidecarState', () => {
  let root: string;
  let paths: SidecarBuildPaths;
  const builtAt = Date.now() - 60_000;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'sidecar-entry-'));
    await mkdir(join(root, 'src'));
    await mkdir(join(root, 'dist'));
    paths = { entry: join(root, 'dist/main.js'), buildInfo: join(root, 'dist/build-info.json'), packageDir: root };
    for (const input of ['src/main.ts', 'src/other.ts']) {
      await writeFile(join(root, input), '');
      await utimes(join(root, input), new Date(builtAt - 1_000), new Date(builtAt - 1_000));
    }
  });
  after(() => rm(root, { recursive: true, force: true }));

  const writeBuild = async (inputs: string[]) => {
    await writeFile(paths.entry, '');
    await writeFile(paths.buildInfo, JSON.stringify({ startedAtMs: builtAt, inputs }));
  };

  it('says a missing entry or build info is missing, and the entry error names `npm run build`', async () => {
    await rm(paths.entry, { force: true });
    assert.deepEqual(await builtSidecarState(paths), {
      fresh: false,
      entry: paths.entry,
      reason: `${paths.entry} is missing`,
    });
    await assert.rejects(builtSidecarEntry(paths), (error: unknown) => {
      assert.ok(error instanceof SidecarNotBuiltError);
      assert.match(error.message, /dist\/main\.js is missing; run `npm run build` in the repository$/);
      return true;
    });
    await writeFile(paths.entry, '');
    await rm(paths.buildInfo, { force: true });
    const state = await builtSidecarState(paths);
    assert.equal(state.fresh, false);
    assert.match(state.fresh ? '' : state.reason, /build-info\.json is missing or unreadable$/);
  });

  it('is fresh while every input is older than the build, and an input that is gone does not count', async () => {
    await writeBuild(['src/main.ts', 'src/other.ts', 'src/deleted.ts']);
    assert.deepEqual(await builtSidecarState(paths), { fresh: true, entry: paths.entry });
    assert.equal(await builtSidecarEntry(paths), paths.entry);
  });

  it('is stale once an input changed after the build started, and names it', async () => {
    await writeBuild(['src/main.ts', 'src/other.ts']);
    const changedAt = new Date(builtAt + 1_000);
    await utimes(join(root, 'src/other.ts'), changedAt, changedAt);
    assert.deepEqual(await builtSidecarState(paths), {
      fresh: false,
      entry: paths.entry,
      reason: `${join(root, 'src/other.ts')} changed after the sidecar was built`,
    });
    await assert.rejects(
      builtSidecarEntry(paths),
      /src\/other\.ts changed after the sidecar was built; run `npm run build`/,
    );
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HostApiError, HostClient, type SessionWorktree, type WorktreeStatus } from '@outrigger/host-api';
import { conflictingPaths } from './hostErrorDetails.ts';
import { FakeTimers, settle } from './testing/fakeTimers.ts';
import { ev } from './testing/fixtures.ts';
import { WorktreeStore } from './worktreeStore.ts';

const worktree: SessionWorktree = {
  repoRoot: '/work/project',
  path: '/data/worktrees/fix',
  branch: 'outrigger/fix',
  baseBranch: 'main',
  baseCommit: 'a'.repeat(40),
  state: 'active',
  mergedCommit: null,
};

function fakeHost(mergeConflicts: boolean) {
  let state: SessionWorktree = worktree;
  let loads = 0;
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const path = new URL(String(url), 'http://host').pathname;
    if (path !== '/api/sessions/s1/worktree') return Response.json({}, { status: 404 });
    if (init?.method === 'POST') {
      const body = JSON.parse(String(init.body));
      if (body.action === 'merge' && mergeConflicts)
        return Response.json(
          {
            error: {
              code: 'conflict',
              message: 'merging conflicts in 1 file(s); nothing was changed',
              details: [{ path: 'src/greet.ts', message: 'changed on both sides' }],
            },
          },
          { status: 409 },
        );
      state =
        body.action === 'merge'
          ? { ...state, mergedCommit: 'b'.repeat(40) }
          : { ...state, state: body.action === 'keep' ? 'kept' : 'discarded' };
      return Response.json({ worktree: state, fastForward: body.action === 'merge' ? true : null });
    }
    loads += 1;
    const status: WorktreeStatus = { worktree: state, files: [], commitsAhead: 1, uncommitted: false };
    return Response.json(status);
  };
  return { client: new HostClient({ fetch: fetch as typeof globalThis.fetch }), loads: () => loads };
}

test('the status loads, reloads on worktree and checkpoint events, and follows a merge', async () => {
  const host = fakeHost(false);
  const store = new WorktreeStore(host.client, 's1', { timers: new FakeTimers() });
  await store.start();
  assert.equal(store.screen.get().status?.commitsAhead, 1);
  store.onEvent(ev('checkpoint', 4, { turnId: 't1', checkpoint: null, filesChanged: 0, error: null }));
  await settle();
  assert.equal(host.loads(), 2);
  const merged = await store.act({ action: 'merge' });
  assert.equal(merged.fastForward, true);
  assert.equal(store.screen.get().status?.worktree.mergedCommit, 'b'.repeat(40));
  await store.act({ action: 'keep' });
  assert.equal(store.screen.get().status?.worktree.state, 'kept');
  store.stop();
});

test('a merge that conflicts is refused with its files, and changes nothing here', async () => {
  const host = fakeHost(true);
  const store = new WorktreeStore(host.client, 's1', { timers: new FakeTimers() });
  await store.start();
  const error = await store.act({ action: 'merge' }).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(error instanceof HostApiError);
  assert.deepEqual(conflictingPaths(error), ['src/greet.ts']);
  assert.equal(store.screen.get().status?.worktree.mergedCommit, null);
  store.stop();
});

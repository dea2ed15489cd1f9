import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HostError } from '../hostError.ts';
import type { WriteUnit } from '../store/hostStore.ts';
import type { SessionRecord } from '../store/records.ts';
import { StoreError } from '../store/storeError.ts';
import { testSession, testTurn } from '../store/testRecords.ts';
import type { HostSession } from './hostSession.ts';
import { SessionArchive } from './sessionArchive.ts';

/*
 * SessionArchive's decisions with a fake session (the real one is in test/sessionsOverHttp.test.ts): what
 * archive and delete refuse, the order of a delete (close, detach, one commit, stop, checkpoints), and a
 * delete whose commit fails leaves the session served as it was.
 */

function fakeSession(record: SessionRecord) {
  const steps: string[] = [];
  let current = record;
  const session = {
    id: record.id,
    get session() {
      return current;
    },
    setArchived: async (archived: boolean, check: (session: SessionRecord) => void) => {
      check(current);
      current = { ...current, archivedAt: archived ? 7 : null };
      steps.push(`archived=${archived}`);
    },
    close: async () => {
      current = { ...current, closed: true };
      steps.push('close');
    },
    whileIdle: async (work: () => Promise<unknown>) => {
      steps.push('idle');
      return work();
    },
    stop: () => steps.push('stop'),
  };
  return { session: session as unknown as HostSession, steps };
}

function archiveWith(commit: (unit: WriteUnit) => Promise<void>, steps: string[]) {
  return new SessionArchive({
    store: { listTurns: async (id) => [testTurn(id, 't1', 0, { providerSessionId: 'resumed-provider' })] },
    commit: async (unit) => {
      await commit(unit);
      return { sessionEvents: [], hostEvents: [] };
    },
    removeCheckpoints: async () => {
      steps.push('checkpoints');
      return true;
    },
  });
}

const conflict = (pattern: RegExp) => (error: unknown) =>
  error instanceof HostError && error.code === 'conflict' && pattern.test(error.message);

test('archive is refused while the session runs or waits; restoring always works', async () => {
  for (const status of ['running', 'needs_input'] as const) {
    const { session } = fakeSession(testSession('s1', { status, archivedAt: null }));
    const archive = archiveWith(async () => undefined, []);
    await assert.rejects(archive.archive(session, true), conflict(/before it is archived/));
    await archive.archive(session, false);
    assert.equal(session.session.archivedAt, null);
  }
  const { session } = fakeSession(testSession('s2', { status: 'failed' }));
  await archiveWith(async () => undefined, []).archive(session, true);
  assert.equal(session.session.archivedAt, 7);
});

test('delete: refused while it works, waits or has an active worktree; else close, detach, one commit, stop, checkpoints', async () => {
  const worktree = {
    repoRoot: '/r',
    path: '/d/w',
    branch: 'b',
    baseBranch: 'main',
    baseCommit: 'c',
    state: 'active' as const,
    mergedCommit: null,
  };
  for (const [overrides, pattern] of [
    [{ status: 'running' as const }, /running/],
    [{ status: 'needs_input' as const }, /waits for an answer/],
    [{ worktree }, /worktree/],
  ] as const) {
    const { session, steps } = fakeSession(testSession('s1', overrides));
    await assert.rejects(
      archiveWith(async () => undefined, steps).delete(session, { detach: () => undefined, reattach: () => undefined }),
      conflict(pattern),
    );
    assert.deepEqual(steps, [], 'nothing was done');
  }

  const { session, steps } = fakeSession(testSession('s1'));
  const units: WriteUnit[] = [];
  const answer = await archiveWith(async (unit) => {
    steps.push('commit');
    units.push(unit);
  }, steps).delete(session, { detach: () => steps.push('detach'), reattach: () => steps.push('reattach') });
  assert.deepEqual(steps, ['close', 'idle', 'detach', 'commit', 'stop', 'checkpoints']);
  assert.deepEqual(units, [
    { deleteSessionIds: ['s1'], hostEvents: [{ type: 'session_deleted', data: { session_id: 's1' } }] },
  ]);
  assert.deepEqual(answer, {
    sessionId: 's1',
    claudeTranscriptIds: ['provider-s1', 'resumed-provider'],
    checkpointsRemoved: true,
  });
});

test('a delete the store refuses takes the session back and keeps its checkpoints', async () => {
  const { session, steps } = fakeSession(testSession('s1'));
  await assert.rejects(
    archiveWith(async () => {
      throw new StoreError('disk full');
    }, steps).delete(session, { detach: () => steps.push('detach'), reattach: () => steps.push('reattach') }),
    StoreError,
  );
  assert.deepEqual(steps, ['close', 'idle', 'detach', 'reattach']);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ChangedFile, type Checkpoint, HostClient, type SessionChanges } from '@outrigger/host-api';
import { ChangesStore, turnChangesError } from './changesStore.ts';
import { FakeTimers, settle } from './testing/fakeTimers.ts';
import { ev } from './testing/fixtures.ts';

const commit = (digit: string) => digit.repeat(40);
const checkpoint = (digit: string, kind: Checkpoint['kind'] = 'safety'): Checkpoint => ({
  id: commit(digit),
  kind,
  turnId: null,
  createdAt: 0,
});
const greet: ChangedFile = {
  path: 'src/greet.ts',
  oldPath: null,
  status: 'modified',
  binary: false,
  additions: 1,
  deletions: 1,
  oldMode: '100644',
  newMode: '100644',
};

/** A host whose changes list says how often it was asked; every request is recorded. */
function fakeHost() {
  const requests: { method: string; path: string; body: unknown }[] = [];
  let lists = 0;
  const changes = (): SessionChanges => ({
    session: { from: commit('a'), to: 'working', files: [greet] },
    turns: [{ turnId: 't1', from: commit('a'), to: commit('b'), files: [greet], error: null }],
    checkpoints: [],
    error: null,
  });
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const parsed = new URL(String(url), 'http://host');
    const body = init?.body === undefined ? undefined : JSON.parse(String(init.body));
    requests.push({ method: init?.method ?? 'GET', path: parsed.pathname + parsed.search, body });
    if (parsed.pathname.endsWith('/changes')) {
      lists += 1;
      return Response.json(changes());
    }
    if (parsed.pathname.endsWith('/rewind'))
      return Response.json({
        dryRun: body.dryRun === true,
        target: body.checkpointId ?? commit('a'),
        files: [greet],
        safetyCheckpoint: body.dryRun === true ? null : checkpoint(body.checkpointId === undefined ? 'c' : 'd'),
      });
    if (parsed.pathname.endsWith('/revert'))
      return Response.json({ dryRun: false, target: body.from, files: [greet], safetyCheckpoint: checkpoint('e') });
    return Response.json({ error: { code: 'not_found', message: 'no route' } }, { status: 404 });
  };
  return { client: new HostClient({ fetch: fetch as typeof globalThis.fetch }), requests, lists: () => lists };
}

test('loads the changes, and loads again on a checkpoint, a rewind elsewhere or a worktree change', async () => {
  const host = fakeHost();
  const store = new ChangesStore(host.client, 's1', { timers: new FakeTimers() });
  await store.start();
  assert.equal(store.screen.get().changes?.turns[0]?.files[0]?.path, 'src/greet.ts');
  assert.equal(store.turn('t1')?.to, commit('b'));
  const version = store.screen.get().version;
  store.onEvent(
    ev('checkpoint', 5, { turnId: 't2', checkpoint: null, filesChanged: null, error: 'git is not installed' }),
  );
  store.onEvent(
    ev('worktree', 6, {
      worktree: {
        repoRoot: '/r',
        path: '/w',
        branch: 'b',
        baseBranch: 'main',
        baseCommit: commit('1'),
        state: 'active',
        mergedCommit: null,
      },
    }),
  );
  await settle();
  assert.equal(host.lists(), 3, 'the two asks while one ran made one more load, not two in parallel');
  assert.ok(store.screen.get().version > version);
  assert.equal(turnChangesError(store.screen.get(), 't2'), 'git is not installed', 'a failed start checkpoint');
  assert.equal(turnChangesError(store.screen.get(), 't1'), null);
  store.stop();
});

test('tool results of a running turn reload the changes once, after the burst', async () => {
  const host = fakeHost();
  const timers = new FakeTimers();
  const store = new ChangesStore(host.client, 's1', { timers, liveDelayMs: 300 });
  await store.start();
  for (const seq of [3, 4, 5])
    store.onEvent(
      ev('tool_result', seq, {
        turnId: 't1',
        messageId: `m${seq}`,
        tool_use_id: `tu${seq}`,
        status: 'completed',
        result: {
          type: 'tool_result',
          tool_use_id: `tu${seq}`,
          content: '',
          is_error: false,
          resultSource: 'canonical',
          truncated: false,
          length: 0,
        },
      }),
    );
  await timers.advance(300);
  assert.equal(host.lists(), 2);
  store.stop();
});

test('a rewind is known once whether its answer or its event comes first; rewinding to its safety checkpoint undoes it', async () => {
  const host = fakeHost();
  const store = new ChangesStore(host.client, 's1', { timers: new FakeTimers() });
  await store.start();
  const preview = await store.previewRewind('t1');
  assert.equal(preview.safetyCheckpoint, null);
  assert.equal(store.screen.get().lastRewound, null, 'a dry run changes nothing');
  await store.rewind('t1');
  const rewound = store.screen.get().lastRewound;
  assert.equal(rewound?.kind, 'rewind');
  assert.equal(rewound?.turnId, 't1');
  store.onEvent(
    ev('files_rewound', 9, { turnId: 't1', target: commit('a'), safetyCheckpoint: checkpoint('c'), files: [greet] }),
  );
  assert.equal(store.screen.get().lastRewound, rewound, 'its event is the same rewind');
  await store.undo(rewound!);
  assert.deepEqual(
    host.requests.filter((r) => r.path.endsWith('/rewind')).map((r) => r.body),
    [{ turnId: 't1', dryRun: true }, { turnId: 't1' }, { checkpointId: commit('c') }],
  );
  const undone = store.screen.get().lastRewound;
  assert.equal(undone?.kind, 'undo');
  assert.equal(undone?.turnId, 't1', 'the undo names the turn of the rewind it undid');
  await store.revert({ from: commit('a'), to: 'working', path: 'src/greet.ts', hunk: 1 });
  assert.equal(store.screen.get().lastRewound?.kind, 'revert');
  store.stop();
});

test('an event from another tab records its rewind; a host that cannot list the changes says so', async () => {
  const client = new HostClient({
    fetch: (async () =>
      Response.json(
        { error: { code: 'git_unavailable', message: 'git is not installed' } },
        { status: 503 },
      )) as typeof fetch,
  });
  const store = new ChangesStore(client, 's1', { timers: new FakeTimers() });
  await store.start();
  assert.equal(store.screen.get().loadError, 'git is not installed');
  assert.equal(store.screen.get().changes, null);
  store.onEvent(
    ev('files_rewound', 3, { turnId: 't1', target: commit('a'), safetyCheckpoint: checkpoint('c'), files: [] }),
  );
  assert.equal(store.screen.get().lastRewound?.kind, 'rewind');
  store.stop();
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionEvent, Task } from '@outrigger/host-api';
import type { ConfigOption, SidecarEvent } from '@outrigger/protocol';
import { readFixture, replayFixture } from '../../test/fixtures/fixtureReplay.ts';
import { CommitPublisher } from '../events/commitPublisher.ts';
import { EventHub } from '../events/eventHub.ts';
import type { SessionLedger } from '../sessions/sessionLedger.ts';
import type { HostViews, SessionLedgers } from '../sessions/sessionManager.ts';
import { FaultInjectingStore, openFaultInjectingSqliteStore } from '../store/faultInjectingStore.ts';
import { SqliteHostStore } from '../store/sqlite/sqliteHostStore.ts';
import { StoreError } from '../store/storeError.ts';
import { type ProjectedSessionLedger, ProjectedSessionLedgers } from './projectedSessionLedger.ts';
import { hostViews } from './views.ts';

const settings = { model: 'default', permissionMode: 'default', planMode: false, effort: null } as const;
const prompt = (text: string, clientMessageId: string | null = null) => ({
  prompt: text,
  input: [],
  attachments: [],
  clientMessageId,
});
const event = (type: string, payload: Record<string, unknown>) =>
  ({ type, payload: { agentSessionId: 's1', ...payload } }) as unknown as SidecarEvent;

async function setup() {
  // Reaches the inner COMMIT too, so a test can fail a write after all of its statements ran.
  const store = openFaultInjectingSqliteStore({ path: ':memory:' });
  const hub = new EventHub(store);
  let clock = 5_000;
  const ledgers = new ProjectedSessionLedgers({
    store,
    committer: new CommitPublisher(store, hub),
    now: () => (clock += 10),
  });
  const ledger = await ledgers.create({ id: 's1', cwd: '/tmp/work', settings, providerSessionId: 'prov-1' });
  return { store, hub, ledgers, ledger };
}

async function runTurn(ledger: ProjectedSessionLedger, turnId: string, text = 'answer') {
  await ledger.apply({ type: 'acceptTurn', turnId: turnId, prompt: prompt(`prompt of ${turnId}`), queued: false });
  await ledger.applySidecarEvent(event('provider_turn_identity_resolved', { turnId, providerTurnId: `p-${turnId}` }));
  await ledger.applySidecarEvent(event('assistant_completed', { turnId, messageId: `m-${turnId}`, content: text }));
  await ledger.applySidecarEvent(event('turn_completed', { turnId, stopReason: 'end_turn' }));
}

test('the projection implements the runtime’s ports', async () => {
  const { store, ledgers, ledger } = await setup();
  const asPort: SessionLedger = ledger;
  const ledgersPort: SessionLedgers = ledgers;
  const viewsPort: HostViews = hostViews;
  assert.equal(asPort.sessionId, 's1');
  assert.ok(ledgersPort && viewsPort);
  assert.equal(ledger.session.title, 'work', 'named after its directory');
  assert.equal(ledger.session.titleSource, 'default');
  const named = await ledgers.create({ id: 's2', cwd: '/tmp/x', title: 'Mine', settings, providerSessionId: 'p2' });
  assert.equal(named.session.titleSource, 'user');
  await store.close();
});

test('what a ledger commits reaches streams only after the commit, in order', async () => {
  const { store, hub, ledger } = await setup();
  const stream = hub.openSessionStream('s1', 0);
  const seen: SessionEvent[] = [];
  const reading = (async () => {
    for await (const item of stream) {
      seen.push(item);
      if (item.type === 'done') break;
    }
  })();
  await runTurn(ledger, 't1');
  await reading;
  assert.deepEqual(
    seen.map((item) => item.type),
    ['status', 'turn_started', 'status', 'text', 'result', 'done'],
  );
  assert.deepEqual(seen, (await store.readSessionEvents('s1', 0, 100)).slice(0, seen.length));
  hub.shutdown();
  await store.close();
});

test('a refused commit throws, keeps nothing and leaves the ledger as the store has it', async () => {
  const { store, ledger } = await setup();
  await ledger.apply({ type: 'acceptTurn', turnId: 't1', prompt: prompt('go'), queued: false });
  await ledger.applySidecarEvent(event('provider_turn_identity_resolved', { turnId: 't1', providerTurnId: 'p1' }));
  store.failWrite(1);
  await assert.rejects(
    ledger.applySidecarEvent(event('turn_completed', { turnId: 't1', stopReason: 'end_turn' })),
    StoreError,
  );
  assert.equal(ledger.turn('t1')?.status, 'running', 'the ledger did not move on');
  assert.equal(ledger.session.status, 'running');
  const applied = await ledger.applySidecarEvent(event('turn_completed', { turnId: 't1', stopReason: 'end_turn' }));
  assert.deepEqual(applied.endedTurnIds, ['t1'], 'the same event applies once the store takes writes again');
  const dones = (await store.readSessionEvents('s1', 0, 100)).filter((item) => item.type === 'done');
  assert.equal(dones.length, 1);
  await store.close();
});

test('a commit that fails at COMMIT is refused like any store fault: nothing kept or streamed, the turn goes on', async () => {
  const { store, hub, ledger } = await setup();
  await ledger.apply({ type: 'acceptTurn', turnId: 't1', prompt: prompt('go'), queued: false });
  await ledger.applySidecarEvent(event('provider_turn_identity_resolved', { turnId: 't1', providerTurnId: 'p1' }));
  const lastSeq = await store.lastSessionSeq('s1');
  const stream = hub.openSessionStream('s1', lastSeq);
  const seen: SessionEvent[] = [];
  const reading = (async () => {
    for await (const item of stream) {
      seen.push(item);
      if (item.type === 'done') break;
    }
  })();
  store.failWrite(1, 'at_commit');
  await assert.rejects(
    ledger.applySidecarEvent(event('turn_completed', { turnId: 't1', stopReason: 'end_turn' })),
    StoreError,
  );
  assert.equal(await store.lastSessionSeq('s1'), lastSeq, 'the rolled-back events have no seq in the log');
  assert.equal(ledger.turn('t1')?.status, 'running', 'the ledger did not move on');
  assert.equal(ledger.session.status, 'running');
  const applied = await ledger.applySidecarEvent(event('turn_completed', { turnId: 't1', stopReason: 'end_turn' }));
  assert.deepEqual(applied.endedTurnIds, ['t1'], 'the same event applies once the store takes writes again');
  await reading;
  const stored = await store.readSessionEvents('s1', lastSeq, 100);
  assert.equal(seen[0]?.data.seq, lastSeq + 1, 'the first event streamed after the failure is the retry’s');
  assert.deepEqual(seen, stored.slice(0, seen.length), 'subscribers got exactly what the store kept, once');
  assert.equal(stored.filter((item) => item.type === 'done').length, 1);
  hub.shutdown();
  await store.close();
});

test('a commit whose acknowledgement was lost is not applied twice: the ledger reloads what the store kept', async () => {
  const { store, ledger } = await setup();
  await ledger.apply({ type: 'acceptTurn', turnId: 't1', prompt: prompt('go'), queued: false });
  await ledger.applySidecarEvent(event('provider_turn_identity_resolved', { turnId: 't1', providerTurnId: 'p1' }));
  store.failWrite(1, 'lose_ack');
  await assert.rejects(ledger.applySidecarEvent(event('turn_completed', { turnId: 't1', stopReason: 'end_turn' })));
  assert.equal(ledger.turn('t1')?.status, 'completed', 'reloaded from the store, which has the commit');
  const again = await ledger.applySidecarEvent(event('turn_completed', { turnId: 't1', stopReason: 'end_turn' }));
  assert.deepEqual(again.endedTurnIds, []);
  const dones = (await store.readSessionEvents('s1', 0, 100)).filter((item) => item.type === 'done');
  assert.equal(dones.length, 1, 'still one done');
  await store.close();
});

test('a late event for a turn the ledger let go of is applied to the stored rows', async () => {
  const { store, ledger } = await setup();
  await ledger.apply({ type: 'acceptTurn', turnId: 't1', prompt: prompt('go'), queued: false });
  await ledger.applySidecarEvent(event('provider_turn_identity_resolved', { turnId: 't1', providerTurnId: 'p1' }));
  const bash = {
    turnId: 't1',
    toolCallId: 'tu-old',
    callId: 'tu-old',
    toolName: 'Bash',
    callType: 'command',
    name: 'Bash',
    status: 'completed',
    input: { command: 'ls' },
    locations: [],
    metadata: { adapter: 'claude-agent-sdk', toolName: 'Bash', resultSource: 'hook' },
    output: { toolResponse: { stdout: 'from the hook' } },
  };
  await ledger.applySidecarEvent(event('tool_completed', bash));
  await ledger.applySidecarEvent(event('turn_completed', { turnId: 't1', stopReason: 'end_turn' }));
  await runTurn(ledger, 't2');
  await runTurn(ledger, 't3');
  assert.equal(ledger.turn('t1'), undefined, 'the old turn was let go of');
  await ledger.applySidecarEvent(
    event('tool_completed', {
      ...bash,
      metadata: { ...bash.metadata, resultSource: 'canonical' },
      output: { text: 'canonical' },
    }),
  );
  const row = await store.getToolMessage('s1', 'tu-old');
  assert.deepEqual(
    row?.content
      .filter((block) => block.type === 'tool_result')
      .map((block) => block.type === 'tool_result' && block.content),
    ['canonical'],
  );
  assert.equal((await store.getTurn('s1', 't1'))?.status, 'completed', 'and the old turn stays ended');
  await store.close();
});

test('a queued turn with images starts with their stored sizes on its prompt row', async () => {
  const { store, ledger } = await setup();
  await ledger.apply({ type: 'acceptTurn', turnId: 't1', prompt: prompt('first'), queued: false });
  await ledger.apply({
    type: 'acceptTurn',
    turnId: 't2',
    prompt: {
      prompt: 'look',
      input: [{ type: 'image', attachmentId: 'img-1', mediaType: 'image/png' }],
      attachments: [
        { id: 'img-1', sessionId: 's1', turnId: 't2', mediaType: 'image/png', bytes: new Uint8Array(7), createdAt: 1 },
      ],
      clientMessageId: 'c2',
    },
    queued: true,
  });
  await ledger.apply({
    type: 'failTurn',
    turnId: 't1',
    error: { message: 'no', code: 'dispatch_failed', apiErrorStatus: null },
  });
  await ledger.apply({ type: 'startQueuedTurn', turnId: 't2' });
  const rows = (await store.listTurnMessages('s1', 't2')).map((row) => row.content);
  assert.deepEqual(rows, [
    [
      { type: 'text', text: 'look' },
      { type: 'image', attachmentId: 'img-1', mediaType: 'image/png', bytes: 7 },
    ],
  ]);
  assert.deepEqual(await store.findClientMessage('s1', 'c2'), { turnId: 't2', steer: false });
  await store.close();
});

const modelOption: ConfigOption = {
  id: 'model',
  name: 'Model',
  type: 'select',
  currentValue: 'default',
  options: [{ value: 'default', name: 'Default' }],
};

const deployCommand = { name: 'deploy', description: 'Deploy the app (project)', argumentHint: '[environment]' };

test('a fork copies the transcript through the turn and rebinds the copied turns to the child', async () => {
  const { store, ledgers, ledger } = await setup();
  await runTurn(ledger, 't1', 'one');
  await runTurn(ledger, 't2', 'two');
  await runTurn(ledger, 't3', 'three');
  const fork = await ledgers.fork({
    id: 'child',
    cwd: '/tmp/work',
    title: 'work (fork)',
    settings,
    providerSessionId: 'child-prov',
    forkedFrom: { sessionId: 's1', turnId: 't2' },
    bindings: [
      { providerTurnId: 'child-p1', checkpointMessageId: 'child-c1' },
      { providerTurnId: 'child-p2', checkpointMessageId: 'child-c2' },
    ],
    sourceProviderTurnIds: ['p-t1', 'p-t2', 'p-t3'],
    resumeCursor: { kind: 'claude-agent-sdk', version: 1, resume: 'child-prov', turnCount: 2 },
    configOptions: [modelOption],
    slashCommands: [deployCommand],
  });
  assert.deepEqual((await store.getSession('child'))?.configOptions, [modelOption], 'the source’s choices at once');
  assert.deepEqual((await store.getSession('child'))?.slashCommands, [deployCommand], 'and its slash commands');
  assert.deepEqual(
    (await store.listTurns('child')).map((turn) => [
      turn.id,
      turn.providerTurnId,
      turn.checkpointMessageId,
      turn.providerSessionId,
    ]),
    [
      ['t1', 'child-p1', 'child-c1', 'child-prov'],
      ['t2', 'child-p2', 'child-c2', 'child-prov'],
    ],
  );
  const texts = (await store.listMessages('child', { limit: 50 })).messages.map((row) =>
    row.content[0]?.type === 'text' ? row.content[0].text : '',
  );
  assert.deepEqual(texts, ['prompt of t1', 'one', 'prompt of t2', 'two']);
  assert.equal(fork.hasTranscript(), true);
  assert.deepEqual(fork.session.forkedFrom, { sessionId: 's1', turnId: 't2' });
  assert.equal(fork.session.resumeCursor?.resume, 'child-prov');
  await runTurn(fork, 't4');
  assert.deepEqual(
    (await store.listTurns('child')).map((turn) => turn.ordinal),
    [0, 1, 2],
    'the fork continues after the copied turns',
  );
  await store.close();
});

test('a fork rebinds each copied turn by its source provider turn: a guide prompt listed between shifts nothing', async () => {
  const { store, ledgers, ledger } = await setup();
  await runTurn(ledger, 't1', 'one');
  await runTurn(ledger, 't2', 'two');
  await ledgers.fork({
    id: 'child',
    cwd: '/tmp/work',
    title: 'work (fork)',
    settings,
    providerSessionId: 'child-prov',
    forkedFrom: { sessionId: 's1', turnId: 't2' },
    // The source transcript holds a guide prompt after t1's: a provider turn with no host turn of its own.
    sourceProviderTurnIds: ['p-t1', 'p-guide', 'p-t2'],
    bindings: [
      { providerTurnId: 'child-p1', checkpointMessageId: 'child-c1' },
      { providerTurnId: 'child-guide', checkpointMessageId: 'child-cg' },
      { providerTurnId: 'child-p2', checkpointMessageId: 'child-c2' },
    ],
    resumeCursor: { kind: 'claude-agent-sdk', version: 1, resume: 'child-prov', turnCount: 3 },
  });
  assert.deepEqual(
    (await store.listTurns('child')).map((turn) => [turn.id, turn.providerTurnId, turn.checkpointMessageId]),
    [
      ['t1', 'child-p1', 'child-c1'],
      ['t2', 'child-p2', 'child-c2'],
    ],
  );
  await store.close();
});

test('user tasks are created after the others, edited and deleted; SDK and foreign tasks are refused', async () => {
  const { store, ledgers, ledger } = await setup();
  await runTurn(ledger, 't1');
  const first = await ledger.createUserTask({ title: 'one' });
  const second = await ledger.createUserTask({ title: 'two', status: 'in_progress', description: 'd' });
  assert.deepEqual([first.sort_order, second.sort_order], [0, 1]);
  const edited = await ledger.updateUserTask(first.id, { title: 'one!', status: 'completed' });
  assert.equal(edited.title, 'one!');
  assert.deepEqual(await store.getTask(first.id), edited);
  await ledger.deleteUserTask(second.id);
  assert.deepEqual(
    (await store.listTasks('s1')).map((task) => task.id),
    [first.id],
  );
  await ledger.applySidecarEvent(
    event('plan_updated', { turnId: 't1', entries: [{ content: 'plan', status: 'pending' }] }),
  );
  await assert.rejects(ledger.updateUserTask('sdk-s1-0', { title: 'x' }), { code: 'conflict' });
  const other = await ledgers.create({ id: 's2', cwd: '/tmp/y', settings, providerSessionId: 'p' });
  await assert.rejects(other.deleteUserTask(first.id), { code: 'not_found' });
  await store.close();
});

test('every user task change publishes tasks_changed with the session’s tasks after it; a refused one publishes nothing', async () => {
  const { store, hub, ledger } = await setup();
  await runTurn(ledger, 't1');
  await ledger.applySidecarEvent(
    event('plan_updated', { turnId: 't1', entries: [{ content: 'plan', status: 'in_progress' }] }),
  );
  const stream = hub.openSessionStream('s1', await store.lastSessionSeq('s1'));
  const seen: SessionEvent[] = [];
  const reading = (async () => {
    for await (const item of stream) {
      seen.push(item);
      if (seen.length === 3) break;
    }
  })();
  const task = await ledger.createUserTask({ title: 'mine' });
  const edited = await ledger.updateUserTask(task.id, { status: 'completed' });
  store.failWrite(1);
  await assert.rejects(ledger.updateUserTask(task.id, { title: 'lost' }), StoreError);
  await ledger.deleteUserTask(task.id);
  await reading;
  const lists = seen.map((item) => (item.type === 'tasks_changed' ? item.data.tasks : item.type));
  const plan = await store.getTask('sdk-s1-0');
  assert.deepEqual(lists, [[plan, task], [plan, edited], [plan]], 'SDK plan first, then the user task as changed');
  assert.deepEqual(seen, await store.readSessionEvents('s1', seen[0]!.data.seq - 1, 10), 'published = stored');
  hub.shutdown();
  await store.close();
});

test('a plan syncs on the tasks the store holds: user tasks kept; a refused sync leaves nothing for the next', async () => {
  const { store, ledger } = await setup();
  await runTurn(ledger, 't1');
  const plan = (entries: { content: string; status: string }[]) => event('plan_updated', { turnId: 't1', entries });
  const mine = await ledger.createUserTask({ title: 'mine' });
  await ledger.applySidecarEvent(plan([{ content: 'a', status: 'pending' }]));
  const stored = await store.listTasks('s1');
  assert.deepEqual(
    stored.map((task) => task.id),
    ['sdk-s1-0', mine.id],
  );
  store.failWrite(1);
  await assert.rejects(ledger.applySidecarEvent(plan([{ content: 'b', status: 'pending' }])), StoreError);
  assert.deepEqual(await store.listTasks('s1'), stored, 'the refused sync wrote nothing');
  const seq = await store.lastSessionSeq('s1');
  await ledger.applySidecarEvent(plan([{ content: 'b', status: 'pending' }]));
  const [update] = await store.readSessionEvents('s1', seq, 10);
  assert.ok(update?.type === 'task_update');
  assert.deepEqual(update.data.tasks, await store.listTasks('s1'), 'built on the stored rows, not on the refused ones');
  assert.deepEqual(
    update.data.tasks.map((task) => [task.id, task.title]),
    [
      ['sdk-s1-0', 'b'],
      [mine.id, 'mine'],
    ],
  );
  await store.close();
});

test('plans that arrived together each sync on the rows the one before left', async () => {
  const { store, ledger } = await setup();
  await runTurn(ledger, 't1');
  const plan = (entries: { content: string; status: string }[]) => event('plan_updated', { turnId: 't1', entries });
  const seq = await store.lastSessionSeq('s1');
  await ledger.applySidecarEvents([
    plan([
      { content: 'a', status: 'pending' },
      { content: 'b', status: 'pending' },
    ]),
    plan([{ content: 'a', status: 'completed' }]),
  ]);
  const lists = (await store.readSessionEvents('s1', seq, 10)).flatMap((item) =>
    item.type === 'task_update' ? [item.data.tasks] : [],
  );
  assert.equal(lists.length, 2);
  const [first, second] = lists as [Task[], Task[]];
  assert.deepEqual(
    first.map((task) => task.id),
    ['sdk-s1-0', 'sdk-s1-1'],
  );
  assert.deepEqual(second, await store.listTasks('s1'));
  assert.deepEqual(
    second.map((task) => [task.id, task.status, task.created_at]),
    [['sdk-s1-0', 'completed', first[0]!.created_at]],
    'the first sync’s row kept its created_at; the todo the second dropped is deleted',
  );
  assert.ok(second[0]!.updated_at > first[0]!.updated_at);
  await store.close();
});

test('events that arrived together apply in one go exactly as one by one', async () => {
  const lines = readFixture('agent');
  const one = await replayFixture(lines);
  const expected = {
    rows: (await one.store.listMessages(one.sessionId, { limit: 500 })).messages.map((row) => [
      row.position,
      row.status,
      JSON.stringify(row.content),
    ]),
    events: (await one.sessionEvents()).map((item) => [item.type, 'turnId' in item.data ? item.data.turnId : null]),
  };
  await one.close();

  // The same scenario, each run of events between two host requests handed over as one batch.
  const store = new FaultInjectingStore(SqliteHostStore.open({ path: ':memory:' }));
  const hub = new EventHub(store);
  let clock = 1_000;
  const ledgers = new ProjectedSessionLedgers({
    store,
    committer: new CommitPublisher(store, hub),
    now: () => (clock += 10),
  });
  let ledger: ProjectedSessionLedger | undefined;
  let batch: SidecarEvent[] = [];
  const flush = async () => {
    if (batch.length > 0) await ledger!.applySidecarEvents(batch);
    batch = [];
  };
  for (const line of lines) {
    if (line.kind === 'event') {
      batch.push({ type: line.type, payload: line.payload } as SidecarEvent);
      continue;
    }
    await flush();
    if (line.type === 'start') {
      ledger = await ledgers.create({
        id: 'fixture-agent',
        cwd: String(line.payload.cwd),
        settings,
        providerSessionId: 'x',
      });
    } else if (line.type === 'exec') {
      await ledger!.apply({
        type: 'acceptTurn',
        turnId: String(line.payload.turnId),
        prompt: prompt(String(line.payload.prompt)),
        queued: false,
      });
    }
  }
  await flush();
  assert.deepEqual(
    (await store.listMessages('fixture-agent', { limit: 500 })).messages.map((row) => [
      row.position,
      row.status,
      JSON.stringify(row.content),
    ]),
    expected.rows,
  );
  assert.deepEqual(
    (await store.readSessionEvents('fixture-agent', 0, 1_000)).map((item) => [
      item.type,
      'turnId' in item.data ? item.data.turnId : null,
    ]),
    expected.events,
  );

  // A refused batch: nothing of it is kept and the ledger is back at what the store holds.
  await ledger!.apply({ type: 'acceptTurn', turnId: 't-late', prompt: prompt('again'), queued: false });
  store.failAllWrites();
  await assert.rejects(
    ledger!
      .applySidecarEvents([
        event('provider_turn_identity_resolved', { turnId: 't-late', providerTurnId: 'p-late' }),
        event('turn_completed', { turnId: 't-late', stopReason: 'end_turn' }),
      ])
      .then(() => undefined),
    StoreError,
  );
  store.heal();
  assert.equal(ledger!.turn('t-late')?.providerTurnId, null);
  assert.equal(ledger!.turn('t-late')?.status, 'running');
  hub.shutdown();
  await store.close();
});

test('a batch is one transaction: refused, nothing of it is kept and it applies whole when tried again', async () => {
  const { store, hub, ledger } = await setup();
  await ledger.apply({ type: 'acceptTurn', turnId: 't1', prompt: prompt('go'), queued: false });
  const batch = [
    event('provider_turn_identity_resolved', { turnId: 't1', providerTurnId: 'p1' }),
    event('assistant_delta', { turnId: 't1', messageId: 'm1', content: 'Hel', snapshot: 'Hel' }),
    event('assistant_delta', { turnId: 't1', messageId: 'm1', content: 'lo', snapshot: 'Hello' }),
    event('assistant_completed', { turnId: 't1', messageId: 'm1', content: 'Hello' }),
    event('turn_completed', { turnId: 't1', stopReason: 'end_turn' }),
  ];
  const stream = hub.openSessionStream('s1', await store.lastSessionSeq('s1'));
  const seen: string[] = [];
  const reading = (async () => {
    for await (const item of stream) {
      seen.push(item.type);
      if (item.type === 'done') break;
    }
  })();
  const writes = store.writeCount;
  const seqBefore = await store.lastSessionSeq('s1');
  store.failWrite(1);
  await assert.rejects(ledger.applySidecarEvents(batch), StoreError);
  assert.equal(store.writeCount - writes, 1, 'the whole batch was one write');
  assert.equal(await store.lastSessionSeq('s1'), seqBefore, 'no event of it was kept');
  assert.equal(ledger.turn('t1')?.providerTurnId, null, 'the ledger is back at what the store holds');
  assert.deepEqual(seen, [], 'nothing was published');

  const applied = await ledger.applySidecarEvents(batch);
  assert.equal(store.writeCount - writes, 2, 'tried again: one more write');
  assert.deepEqual(
    applied.map((item) => item.endedTurnIds),
    [[], [], [], [], ['t1']],
  );
  await reading;
  assert.deepEqual(
    seen,
    (await store.readSessionEvents('s1', seqBefore, 100)).map((item) => item.type).slice(0, seen.length),
    'published exactly what was stored, in order',
  );
  assert.equal(seen.filter((type) => type === 'done').length, 1);
  const rows = (await store.listMessages('s1', { limit: 10 })).messages.filter((row) => row.role === 'assistant');
  assert.deepEqual(
    rows.map((row) => [row.status, JSON.stringify(row.content)]),
    [['complete', JSON.stringify([{ type: 'text', text: 'Hello' }])]],
  );
  hub.shutdown();
  await store.close();
});

test('a batch the store kept without confirming it is not applied twice', async () => {
  const { store, ledger } = await setup();
  await ledger.apply({ type: 'acceptTurn', turnId: 't1', prompt: prompt('go'), queued: false });
  const batch = [
    event('provider_turn_identity_resolved', { turnId: 't1', providerTurnId: 'p1' }),
    event('assistant_delta', { turnId: 't1', messageId: 'm1', content: 'Hel', snapshot: 'Hel' }),
    event('assistant_delta', { turnId: 't1', messageId: 'm1', content: 'lo', snapshot: 'Hello' }),
    event('turn_completed', { turnId: 't1', stopReason: 'end_turn' }),
  ];
  const seqBefore = await store.lastSessionSeq('s1');
  store.failWrite(1, 'lose_ack');
  const applied = await ledger.applySidecarEvents(batch);
  assert.deepEqual(applied.at(-1)?.endedTurnIds, ['t1'], 'kept: the runtime learns the turn ended');
  assert.equal(ledger.turn('t1')?.status, 'completed', 'reloaded from the store, which has the batch');
  const stored = await store.readSessionEvents('s1', seqBefore, 100);
  const deltas = stored.filter((item) => item.type === 'text' && !item.data.final).map((item) => item.data);
  assert.deepEqual(
    deltas.map((data) => (data as { delta: string }).delta),
    ['Hel', 'lo'],
    'each delta once',
  );
  assert.equal(stored.filter((item) => item.type === 'done').length, 1);
  await store.close();
});

test('a batch whose projection throws keeps nothing and leaves the ledger as the store has it', async () => {
  const { store, ledger } = await setup();
  await ledger.apply({ type: 'acceptTurn', turnId: 't1', prompt: prompt('go'), queued: false });
  const seqBefore = await store.lastSessionSeq('s1');
  const poisoned = event('provider_turn_identity_resolved', { turnId: 't1', providerTurnId: 'p1' });
  const broken = {
    type: 'assistant_delta',
    get payload(): never {
      throw new Error('unreadable payload');
    },
  } as unknown as SidecarEvent;
  await assert.rejects(ledger.applySidecarEvents([poisoned, broken]), /unreadable payload/);
  assert.equal(ledger.turn('t1')?.providerTurnId, null, 'the first event’s projection was dropped with the batch');
  assert.equal(await store.lastSessionSeq('s1'), seqBefore);
  await store.close();
});

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { SessionEvent, SessionSummary, SseFrame, Task } from '@outrigger/host-api';
import { e2eScenario, PLAN_TODOS, SLOW_TEXT } from './harness/scenarios.ts';
import { isDoneOf, readEventsUntil, runTurnToDone, seqsOf } from './harness/sseReader.ts';
import { startTestHost, type TestHost, TODO_WRITE_ENV } from './harness/testHost.ts';

/*
 * The host end to end over HTTP: the real host, the real sidecar and the real Claude Code binary against
 * mock-anthropic. One host (one sidecar, one Claude Code per session) serves every test here.
 */

const CANARY = 'CANARY-PROMPT-9d41';

let testHost: TestHost;
before(async () => {
  testHost = await startTestHost({ scenario: e2eScenario, env: TODO_WRITE_ENV });
});
after(async () => {
  await testHost?.close();
});

async function newSession(title: string): Promise<string> {
  const created = await testHost.client.call('createSession', { body: { cwd: testHost.cwd, title } });
  return created.id;
}

const dataOf = <T = Record<string, unknown>>(frame: SseFrame | undefined) => frame?.data as T;

test('a session runs a turn: the stream has the answer and one done, the messages are stored', async () => {
  const sessionId = await newSession('hello');
  const { turnId, frames } = await runTurnToDone(testHost.client, sessionId, `hello ${CANARY}`);
  const ofTurn = frames.filter((frame) => dataOf<{ turnId?: string }>(frame).turnId === turnId);
  assert.equal(ofTurn[0]?.event, 'turn_started');
  assert.equal(ofTurn.filter((frame) => frame.event === 'done').length, 1);
  assert.equal(ofTurn.at(-1)?.event, 'done');
  assert.equal(dataOf<{ outcome: string }>(ofTurn.at(-1)).outcome, 'completed');
  const finalText = ofTurn.find((frame) => frame.event === 'text' && dataOf<{ final: boolean }>(frame).final);
  assert.equal(dataOf<{ text: string }>(finalText).text, 'Hello from the scripted model.');
  const seqs = seqsOf(frames);
  assert.deepEqual(
    seqs,
    [...seqs].sort((a, b) => a - b),
    'seqs increase',
  );

  const page = await testHost.client.call('listMessages', { params: { id: sessionId } });
  const rows = page.messages.filter((message) => message.turnId === turnId);
  assert.deepEqual(
    rows.map((row) => [row.role, row.content[0]?.type]),
    [
      ['user', 'text'],
      ['assistant', 'text'],
    ],
  );
  assert.deepEqual(rows[1]?.content[0], { type: 'text', text: 'Hello from the scripted model.' });
  assert.equal(page.turns.find((turn) => turn.id === turnId)?.status, 'completed');
  const snapshot = await testHost.client.call('getSession', { params: { id: sessionId } });
  assert.equal(snapshot.session.status, 'idle');
  assert.equal(snapshot.openTurn, null);

  // The host stream tells the sidebar about the session: running, then idle again.
  const statusOf = (frame: SseFrame) => {
    const { session } = dataOf<{ session?: { id: string; status: string } }>(frame);
    return frame.event === 'session' && session?.id === sessionId ? session.status : undefined;
  };
  const hostFrames = await readEventsUntil(
    testHost.client,
    undefined,
    (frame, seen) => statusOf(frame) === 'idle' && seen.some((earlier) => statusOf(earlier) === 'running'),
    { lastEventId: 0 },
  );
  assert.ok(hostFrames.length > 1);

  const log = await testHost.logText();
  assert.ok(!log.includes(CANARY), 'the prompt never reaches the log');
  assert.ok(!log.includes(testHost.host.token), 'the token never reaches the log');
  const problems = (await testHost.logRecords()).filter((record) => /_invalid$/.test(String(record.event)));
  assert.deepEqual(problems, [], 'every response and event matched the contract');
});

test('a TodoWrite turn fills /api/tasks with the seed mapping and leaves a user task alone, twice', async () => {
  const sessionId = await newSession('plan');
  const { task: userTask } = await testHost.client.call('createTask', {
    body: { session_id: sessionId, title: 'Water the plants' },
  });
  const expected = (tasks: Task[]) =>
    tasks.map(({ id, title, status, description, sort_order, source }) => ({
      id,
      title,
      status,
      description,
      sort_order,
      source,
    }));
  const sdkRows = PLAN_TODOS.map((todo, index) => ({
    id: `sdk-${sessionId}-${index}`,
    title: todo.content,
    status: todo.status,
    description: todo.activeForm,
    sort_order: index,
    source: 'sdk',
  }));
  const results: unknown[] = [];
  for (let round = 0; round < 2; round += 1) {
    const { frames } = await runTurnToDone(testHost.client, sessionId, 'make a plan');
    const update = frames.find((frame) => frame.event === 'task_update');
    // The sidecar reports a plan when it changed: the second, identical TodoWrite may bring no update.
    if (round === 0 || update !== undefined) assert.deepEqual(dataOf<{ todos: unknown }>(update).todos, PLAN_TODOS);
    const { tasks } = await testHost.client.call('listTasks', { query: { session_id: sessionId } });
    assert.deepEqual(expected(tasks), [
      ...sdkRows,
      {
        id: userTask.id,
        title: 'Water the plants',
        status: 'pending',
        description: null,
        sort_order: userTask.sort_order,
        source: 'user',
      },
    ]);
    results.push(expected(tasks));
    if (update !== undefined) {
      assert.deepEqual(expected(dataOf<{ tasks: Task[] }>(update).tasks), expected(tasks), 'the event has the rows');
    }
  }
  assert.deepEqual(results[0], results[1], 'the same plan twice gives the same rows');
  const log = await testHost.logText();
  assert.ok(!log.includes('Make them pass'), 'tool input never reaches the log');
  await assert.rejects(
    testHost.client.call('updateTask', { params: { taskId: `sdk-${sessionId}-0` }, body: { title: 'mine now' } }),
    (error: unknown) => (error as { status?: number }).status === 409,
  );
});

test('a reconnect with Last-Event-ID gets exactly the missed events; a snapshot mid-turn matches the log', async () => {
  const sessionId = await newSession('slowly');
  const { lastSeq } = await testHost.client.call('getSession', { params: { id: sessionId } });
  const { turnId } = await testHost.client.call('postTurn', {
    params: { id: sessionId },
    body: { prompt: 'answer slowly' },
  });
  // A first client reads until a few deltas have arrived, then drops.
  const first = await readEventsUntil(
    testHost.client,
    sessionId,
    (_frame, seen) => seen.filter((frame) => frame.event === 'text').length >= 3,
    { lastEventId: lastSeq },
  );
  const lastSeen = Math.max(...seqsOf(first));
  // Mid-turn: the snapshot is consistent at its lastSeq, and the turn is open.
  const snapshot = await testHost.client.call('getSession', { params: { id: sessionId } });
  assert.equal(snapshot.openTurn?.id, turnId);
  assert.equal(snapshot.session.status, 'running');
  const streaming = snapshot.messages.messages.find(
    (message) => message.turnId === turnId && message.role === 'assistant',
  );
  // A client that watched from the start, up to the snapshot's seq, shows what the snapshot shows.
  const upToSnapshot = await readEventsUntil(
    testHost.client,
    sessionId,
    (frame) => Number(frame.id) >= snapshot.lastSeq,
    {
      lastEventId: lastSeq,
    },
  );
  assert.equal(Math.max(...seqsOf(upToSnapshot)), snapshot.lastSeq, 'the snapshot is at a seq the log has');
  const streamedText = upToSnapshot
    .filter((frame) => frame.event === 'text')
    .map((frame) => dataOf<{ delta: string }>(frame).delta)
    .join('');
  const rowText = streaming?.content[0]?.type === 'text' ? streaming.content[0].text : '';
  assert.equal(rowText, streamedText, 'the stored row is the fold of the events up to lastSeq');

  // The reconnect gets exactly what came after the last seen event, to the turn's end.
  const rest = await readEventsUntil(testHost.client, sessionId, isDoneOf(turnId), { lastEventId: lastSeen });
  const all = await readEventsUntil(testHost.client, sessionId, isDoneOf(turnId), { lastEventId: lastSeq });
  assert.deepEqual(
    [...seqsOf(first), ...seqsOf(rest)],
    seqsOf(all),
    'first + rest is the whole log: nothing missed, nothing twice',
  );
  const text = all
    .filter((frame) => frame.event === 'text' && !dataOf<{ final: boolean }>(frame).final)
    .map((frame) => dataOf<{ delta: string }>(frame).delta)
    .join('');
  assert.equal(text, SLOW_TEXT);
});

test('POST turns with Accept: text/event-stream streams the turn to its done', async () => {
  const sessionId = await newSession('stream');
  const response = await testHost.client.raw('postTurn', {
    params: { id: sessionId },
    body: { prompt: 'hello again' },
    headers: { accept: 'text/event-stream' },
  });
  const { readSseFrames } = await import('@outrigger/host-api');
  const frames: SseFrame[] = [];
  for await (const frame of readSseFrames(response.body!)) frames.push(frame);
  assert.equal(frames[0]?.event, 'accepted');
  const { turnId } = dataOf<{ turnId: string }>(frames[0]);
  assert.equal(frames.at(-1)?.event, 'done');
  for (const frame of frames.slice(1))
    assert.equal(dataOf<SessionEvent['data'] & { turnId: string }>(frame).turnId, turnId);
});

test('the session list is consistent at its lastSeq, and says when the running turn started', async () => {
  const sessionId = await newSession('list');
  const before = await testHost.client.call('listSessions');
  const listed = before.sessions.find((session) => session.id === sessionId);
  assert.equal(listed?.runningTurnId, null);
  assert.equal(listed?.runningTurnStartedAt, null);
  const { lastSeq } = await testHost.client.call('getSession', { params: { id: sessionId } });
  const { turnId } = await testHost.client.call('postTurn', {
    params: { id: sessionId },
    body: { prompt: 'answer slowly' },
  });
  await readEventsUntil(testHost.client, sessionId, (frame) => frame.event === 'text', { lastEventId: lastSeq });

  // Mid-turn: the list holds every host event up to its lastSeq and none after it.
  const during = await testHost.client.call('listSessions');
  const running = during.sessions.find((session) => session.id === sessionId);
  const snapshot = await testHost.client.call('getSession', { params: { id: sessionId } });
  assert.equal(running?.runningTurnId, turnId);
  assert.equal(running?.runningTurnStartedAt, snapshot.openTurn?.startedAt, 'the running turn’s own start');
  assert.equal(typeof running?.runningTurnStartedAt, 'number');
  const upToList = await readEventsUntil(testHost.client, undefined, (frame) => Number(frame.id) >= during.lastSeq, {
    lastEventId: before.lastSeq,
  });
  assert.equal(Math.max(...seqsOf(upToList)), during.lastSeq, 'the list is at a seq the host log has');
  const lastSummary = upToList
    .filter((frame) => frame.event === 'session')
    .map((frame) => dataOf<{ session: SessionSummary }>(frame).session)
    .filter((session) => session.id === sessionId)
    .at(-1);
  const visible = ({ status, runningTurnId, runningTurnStartedAt, needsInputCount, title }: SessionSummary) => ({
    status,
    runningTurnId,
    runningTurnStartedAt,
    needsInputCount,
    title,
  });
  assert.ok(lastSummary !== undefined && running !== undefined);
  assert.deepEqual(visible(running), visible(lastSummary), 'the list is the fold of the host events up to lastSeq');

  // A stream opened after the list starts right after it and brings the turn's end, not its start again.
  const idleOf = (frame: SseFrame) =>
    frame.event === 'session' && dataOf<{ session: SessionSummary }>(frame).session.id === sessionId
      ? dataOf<{ session: SessionSummary }>(frame).session
      : undefined;
  const after = await readEventsUntil(testHost.client, undefined, (frame) => idleOf(frame)?.status === 'idle', {
    lastEventId: during.lastSeq,
  });
  assert.equal(Number(after[0]?.id), during.lastSeq + 1);
  const summaries = after.map(idleOf).filter((session) => session !== undefined);
  assert.equal(
    summaries.some((session) => session.runningTurnId === turnId && session.status === 'running'),
    false,
    'the turn starting is not applied twice',
  );
  assert.equal(summaries.at(-1)?.runningTurnStartedAt, null, 'null once no turn runs');
});

test('user task edits reach every client as tasks_changed, with the session’s tasks after each', async () => {
  const sessionId = await newSession('tasks');
  const { lastSeq } = await testHost.client.call('getSession', { params: { id: sessionId } });
  const { task } = await testHost.client.call('createTask', { body: { session_id: sessionId, title: 'Buy milk' } });
  const { task: edited } = await testHost.client.call('updateTask', {
    params: { taskId: task.id },
    body: { status: 'completed', title: 'Buy oat milk' },
  });
  const { task: other } = await testHost.client.call('createTask', { body: { session_id: sessionId, title: 'Call' } });
  await testHost.client.call('deleteTask', { params: { taskId: task.id } });
  // A client that connects only now replays them from the snapshot's seq.
  const frames = await readEventsUntil(
    testHost.client,
    sessionId,
    (_frame, seen) => seen.filter((frame) => frame.event === 'tasks_changed').length === 4,
    { lastEventId: lastSeq },
  );
  const lists = frames
    .filter((frame) => frame.event === 'tasks_changed')
    .map((frame) => dataOf<{ tasks: Task[] }>(frame).tasks.map((item) => `${item.title}:${item.status}`));
  assert.deepEqual(lists, [
    ['Buy milk:pending'],
    ['Buy oat milk:completed'],
    ['Buy oat milk:completed', 'Call:pending'],
    ['Call:pending'],
  ]);
  assert.equal(edited.title, 'Buy oat milk');
  const snapshot = await testHost.client.call('getSession', { params: { id: sessionId } });
  assert.deepEqual(snapshot.tasks, [other], 'the snapshot agrees with the last event');
  const lastEvent = frames.filter((frame) => frame.event === 'tasks_changed').at(-1);
  assert.deepEqual(dataOf<{ tasks: Task[] }>(lastEvent).tasks, snapshot.tasks);
  assert.ok(snapshot.lastSeq >= Number(lastEvent?.id));
});

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { HostApiError, HostClient, type RouteBody, type SseFrame } from '@outrigger/host-api';
import { bashCall, caseScripts, slowText, text } from '../src/sessions/testing/scriptedModel.ts';
import { markedProcessesRunning } from './harness/processes.ts';
import { modelRequestsWith } from './harness/scenarios.ts';
import { isDoneOf, lastSeqOf, readEventsUntil } from './harness/sseReader.ts';
import { startTestHost, type TestHost } from './harness/testHost.ts';

/*
 * The runtime's items of issue 9 over HTTP: the real host, sidecar and Claude Code against mock-anthropic.
 * One host for the file; each case closes its session, so at most two Claude Code processes live at once.
 */

const cases = caseScripts();
let testHost: TestHost;
const cancelLatencies: number[] = [];

before(async () => {
  testHost = await startTestHost({ rules: [cases.rule] });
});
after(async () => {
  if (cancelLatencies.length > 0) {
    const sorted = [...cancelLatencies].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    console.log(`cancel through the host (POST → answer, ms): n=${sorted.length} p50=${at(0.5)} p95=${at(0.95)}`);
  }
  await testHost?.close();
});

const dataOf = <T = Record<string, unknown>>(frame: SseFrame | undefined) => frame?.data as T;
const ofTurn = (frames: readonly SseFrame[], turnId: string) =>
  frames.filter((frame) => dataOf<{ turnId?: string }>(frame).turnId === turnId);

async function newSession(title: string): Promise<string> {
  return (await testHost.client.call('createSession', { body: { cwd: testHost.cwd, title } })).id;
}

async function closeSession(sessionId: string): Promise<void> {
  await testHost.client.call('closeSession', { params: { id: sessionId } });
}

async function post(sessionId: string, body: RouteBody<'postTurn'>) {
  return testHost.client.call('postTurn', { params: { id: sessionId }, body });
}

function sidecarPids(): number[] {
  return markedProcessesRunning(testHost.mark, 'claude-sdk-sidecar');
}

function expectStatus(status: number) {
  return (error: unknown) => error instanceof HostApiError && error.status === status;
}

test('a prompt sent while a turn runs is queued (snapshot + queue event) and runs after it; a steer goes into it', async () => {
  const sessionId = await newSession('queue and steer');
  try {
    const from = await lastSeqOf(testHost.client, sessionId);
    const first = await post(sessionId, { prompt: cases.prompt('a long answer', { prompt: slowText(30) }) });
    await readEventsUntil(testHost.client, sessionId, (frame) => frame.event === 'text', { lastEventId: from });

    const queuedPrompt = cases.prompt('after the first', { prompt: text('Queued answer.') });
    const queued = await post(sessionId, { prompt: queuedPrompt, clientMessageId: 'queued-1' });
    assert.deepEqual({ queued: queued.queued, steered: queued.steered }, { queued: true, steered: false });
    const snapshot = await testHost.client.call('getSession', { params: { id: sessionId } });
    assert.deepEqual(
      snapshot.queuedPrompts.map((item) => [item.turnId, item.clientMessageId]),
      [[queued.turnId, 'queued-1']],
    );
    assert.equal(snapshot.openTurn?.id, first.turnId);

    const steerPrompt = cases.prompt('also consider this', { prompt: text('Steered answer.') });
    const steer = await post(sessionId, { prompt: steerPrompt, mode: 'steer', clientMessageId: 'steer-1' });
    assert.deepEqual(steer, { turnId: first.turnId, queued: false, steered: true, replayed: false });

    const frames = await readEventsUntil(testHost.client, sessionId, isDoneOf(queued.turnId), { lastEventId: from });
    const queueEvents = frames.filter((frame) => frame.event === 'queue');
    assert.deepEqual(
      dataOf<{ queuedPrompts: { turnId: string }[] }>(queueEvents[0]).queuedPrompts.map((item) => item.turnId),
      [queued.turnId],
    );
    assert.deepEqual(
      dataOf<{ queuedPrompts: unknown[] }>(queueEvents.at(-1)).queuedPrompts,
      [],
      'taken from the queue',
    );
    const steered = frames.find((frame) => frame.event === 'user_message');
    assert.equal(dataOf<{ turnId: string }>(steered).turnId, first.turnId);
    const firstFrames = ofTurn(frames, first.turnId);
    assert.equal(firstFrames.filter((frame) => frame.event === 'done').length, 1);
    const firstDone = frames.findIndex(isDoneOf(first.turnId));
    const queuedStart = frames.findIndex(
      (frame) => frame.event === 'turn_started' && dataOf<{ turnId: string }>(frame).turnId === queued.turnId,
    );
    assert.ok(firstDone < queuedStart, 'the queued prompt starts after the running turn is done');
    const finals = frames
      .filter((frame) => frame.event === 'text' && dataOf<{ final: boolean }>(frame).final)
      .map((frame) => [dataOf<{ turnId: string }>(frame).turnId, dataOf<{ text: string }>(frame).text]);
    assert.deepEqual(finals.at(-1), [queued.turnId, 'Queued answer.']);
    assert.ok(
      finals.some(([turnId, answer]) => turnId === first.turnId && answer === 'Steered answer.'),
      'the steer was answered inside the running turn',
    );
    assert.equal(modelRequestsWith(testHost.mock, steerPrompt).length > 0, true, 'the model got the steer');

    const page = await testHost.client.call('listMessages', { params: { id: sessionId } });
    const steerRow = page.messages.find((message) => message.clientMessageId === 'steer-1');
    assert.equal(steerRow?.steer, true);
    assert.equal(steerRow?.turnId, first.turnId);
    const replay = await post(sessionId, { prompt: steerPrompt, mode: 'steer', clientMessageId: 'steer-1' });
    assert.deepEqual(replay, { turnId: first.turnId, queued: false, steered: true, replayed: true });
  } finally {
    await closeSession(sessionId);
  }
});

test('a retried POST with the same clientMessageId starts one turn', async () => {
  const sessionId = await newSession('retry');
  try {
    const prompt = cases.prompt('only once please', { prompt: text('Once.') });
    const from = await lastSeqOf(testHost.client, sessionId);
    const answers = await Promise.all([
      post(sessionId, { prompt, clientMessageId: 'retry-1' }),
      post(sessionId, { prompt, clientMessageId: 'retry-1' }),
    ]);
    assert.equal(answers[0].turnId, answers[1].turnId);
    assert.deepEqual(answers.map((answer) => answer.replayed).sort(), [false, true]);
    await readEventsUntil(testHost.client, sessionId, isDoneOf(answers[0].turnId), { lastEventId: from });
    const again = await post(sessionId, { prompt, clientMessageId: 'retry-1' });
    assert.deepEqual(again, { turnId: answers[0].turnId, queued: false, steered: false, replayed: true });
    const page = await testHost.client.call('listMessages', { params: { id: sessionId } });
    assert.equal(page.messages.filter((message) => message.role === 'user').length, 1);
    assert.equal(page.turns.length, 1);
    assert.equal(modelRequestsWith(testHost.mock, prompt).length, 1, 'the model was asked once');
  } finally {
    await closeSession(sessionId);
  }
});

test('cancel mid-stream: provider_active after the acceptance is durable, one done last, the text kept as interrupted', async () => {
  const sessionId = await newSession('cancel');
  try {
    for (let round = 0; round < 5; round += 1) {
      const from = await lastSeqOf(testHost.client, sessionId);
      const { turnId } = await post(sessionId, { prompt: cases.prompt(`stream ${round}`, { prompt: slowText(80) }) });
      await readEventsUntil(testHost.client, sessionId, (frame) => frame.event === 'text', { lastEventId: from });
      const started = performance.now();
      const answer = await testHost.client.call('cancelTurn', {
        params: { id: sessionId, turnId },
        body: { interruptTimeoutMs: 5_000, drainTimeoutMs: 5_000 },
      });
      cancelLatencies.push(Math.round(performance.now() - started));
      assert.equal(answer.canceled, true);
      assert.equal(answer.disposition, 'provider_active');
      assert.notEqual(answer.providerTurnId, '');
      // The answer came after the binding and the end were committed: the snapshot already has them.
      const snapshot = await testHost.client.call('getSession', { params: { id: sessionId } });
      assert.equal(snapshot.openTurn, null);
      const turns = await testHost.client.call('listMessages', { params: { id: sessionId } });
      const turn = turns.turns.find((item) => item.id === turnId);
      assert.equal(turn?.status, 'canceled');
      assert.equal(turn?.providerTurnId, answer.providerTurnId);

      const frames = ofTurn(
        await readEventsUntil(testHost.client, sessionId, isDoneOf(turnId), { lastEventId: from }),
        turnId,
      );
      assert.equal(frames.filter((frame) => frame.event === 'done').length, 1);
      assert.equal(frames.at(-1)?.event, 'done');
      assert.equal(dataOf<{ outcome: string }>(frames.at(-1)).outcome, 'canceled');
      assert.equal(frames.at(-2)?.event, 'turn_canceled');
      const row = turns.messages.find((message) => message.turnId === turnId && message.role === 'assistant');
      assert.equal(row?.status, 'interrupted');
    }
    // The session goes on after the cancels.
    const from = await lastSeqOf(testHost.client, sessionId);
    const { turnId } = await post(sessionId, { prompt: cases.prompt('still there?', { prompt: text('Yes.') }) });
    const frames = await readEventsUntil(testHost.client, sessionId, isDoneOf(turnId), { lastEventId: from });
    assert.equal(dataOf<{ outcome: string }>(frames.at(-1)).outcome, 'completed');
    const gone = await testHost.client.call('cancelTurn', { params: { id: sessionId, turnId }, body: {} });
    assert.deepEqual([gone.canceled, gone.disposition], [false, 'absent']);
    await assert.rejects(
      testHost.client.call('cancelTurn', { params: { id: sessionId, turnId }, body: { drainTimeoutMs: 0 } }),
      expectStatus(400),
    );
  } finally {
    await closeSession(sessionId);
  }
});

test('an approval: seen pending by a second client that connects later, answered twice (replayed) and differently (409)', async () => {
  const sessionId = await newSession('approval');
  try {
    const from = await lastSeqOf(testHost.client, sessionId);
    const { turnId } = await post(sessionId, {
      prompt: cases.prompt('make a file', {
        prompt: bashCall('touch approved-by-host.txt'),
        afterTool: () => text('The file is made.'),
      }),
    });
    const asked = await readEventsUntil(testHost.client, sessionId, (frame) => frame.event === 'permission_request', {
      lastEventId: from,
    });
    const requestId = dataOf<{ interaction: { requestId: string } }>(asked.at(-1)).interaction.requestId;

    // A second client, connecting only now, sees it pending in the inbox and in the session's replay.
    const second = new HostClient({ baseUrl: testHost.host.baseUrl, token: testHost.host.token });
    const inbox = await second.call('listInteractions', { query: { status: 'pending' } });
    const pending = inbox.interactions.find((item) => item.requestId === requestId);
    assert.equal(pending?.session_id, sessionId);
    assert.equal(pending?.kind, 'approval');
    assert.equal(pending?.toolName, 'Bash');
    assert.equal(pending?.input.command, 'touch approved-by-host.txt');
    const replayed = await readEventsUntil(second, sessionId, (frame) => frame.event === 'permission_request');
    assert.equal(dataOf<{ interaction: { requestId: string } }>(replayed.at(-1)).interaction.requestId, requestId);
    const isRequestOf = (frame: SseFrame) =>
      frame.event === 'permission_request' &&
      dataOf<{ interaction: { requestId: string } }>(frame).interaction.requestId === requestId;
    const hostFrom = await readEventsUntil(second, undefined, isRequestOf);
    const hostSeq = Number(hostFrom.at(-1)?.id);
    // The lists say the host stream's seq they hold: the request is in it, so a stream opened after it
    // never brings the request again, only what comes next.
    const ofSession = await second.call('listSessionInteractions', {
      params: { id: sessionId },
      query: { status: 'pending' },
    });
    assert.deepEqual(
      ofSession.interactions.map((item) => item.requestId),
      [requestId],
    );
    for (const list of [inbox, ofSession]) assert.ok(list.lastSeq >= hostSeq, 'the list includes the request event');

    const allow = { action: 'allow', optionId: 'allow', payload: {} };
    const params = { id: sessionId, requestId };
    const answered = await testHost.client.call('answerInteraction', { params, body: allow });
    assert.equal(answered.replayed, false);
    assert.equal(answered.interaction.status, 'answered');
    const again = await second.call('answerInteraction', { params, body: allow });
    assert.equal(again.replayed, true);
    await assert.rejects(
      second.call('answerInteraction', { params, body: { action: 'reject', optionId: 'reject', payload: {} } }),
      expectStatus(409),
    );

    const frames = await readEventsUntil(testHost.client, sessionId, isDoneOf(turnId), { lastEventId: from });
    assert.equal(frames.filter((frame) => frame.event === 'permission_resolved').length, 1);
    assert.equal(dataOf<{ outcome: string }>(frames.at(-1)).outcome, 'completed');
    const hostResolved = await readEventsUntil(second, undefined, (frame) => frame.event === 'permission_resolved', {
      lastEventId: hostSeq,
    });
    assert.equal(dataOf<{ requestId: string }>(hostResolved.at(-1)).requestId, requestId, 'every tab closes it');
    const afterList = await readEventsUntil(second, undefined, (frame) => frame.event === 'permission_resolved', {
      lastEventId: inbox.lastSeq,
    });
    assert.equal(Number(afterList[0]?.id), inbox.lastSeq + 1, 'the stream after the list starts right after it');
    assert.equal(afterList.filter(isRequestOf).length, 0, 'nothing the list held comes again');
    const after = await second.call('listInteractions', { query: { status: 'pending' } });
    assert.equal(
      after.interactions.some((item) => item.requestId === requestId),
      false,
    );
  } finally {
    await closeSession(sessionId);
  }
});

test('the sidecar killed mid-turn ends the turn at once; the next prompt resumes the session on a new one', async () => {
  const sessionId = await newSession('sidecar dies');
  try {
    let from = await lastSeqOf(testHost.client, sessionId);
    const rememberPrompt = cases.prompt('remember the word PELICAN', { prompt: text('Remembered.') });
    const remember = await post(sessionId, { prompt: rememberPrompt });
    await readEventsUntil(testHost.client, sessionId, isDoneOf(remember.turnId), { lastEventId: from });

    from = await lastSeqOf(testHost.client, sessionId);
    const { turnId } = await post(sessionId, { prompt: cases.prompt('stream and die', { prompt: slowText(80) }) });
    await readEventsUntil(testHost.client, sessionId, (frame) => frame.event === 'text', { lastEventId: from });
    const [pid] = sidecarPids();
    assert.ok(pid !== undefined, 'the sidecar runs');
    const killedAt = performance.now();
    process.kill(pid, 'SIGKILL');
    const frames = ofTurn(
      await readEventsUntil(testHost.client, sessionId, isDoneOf(turnId), { lastEventId: from }),
      turnId,
    );
    const endedAfterMs = performance.now() - killedAt;
    const done = dataOf<{ outcome: string; error: { code: string; message: string } }>(frames.at(-1));
    assert.equal(done.outcome, 'failed');
    assert.equal(done.error.code, 'sidecar_exited');
    assert.match(done.error.message, /^sidecar exited: /);
    assert.equal(frames.filter((frame) => frame.event === 'done').length, 1);
    console.log(`sidecar SIGKILL → the turn's done on the stream: ${Math.round(endedAfterMs)} ms`);

    from = await lastSeqOf(testHost.client, sessionId);
    const recallPrompt = cases.prompt('which word?', { prompt: text('PELICAN.') });
    const recall = await post(sessionId, { prompt: recallPrompt });
    const after = await readEventsUntil(testHost.client, sessionId, isDoneOf(recall.turnId), { lastEventId: from });
    assert.equal(dataOf<{ outcome: string }>(after.at(-1)).outcome, 'completed');
    assert.notDeepEqual(sidecarPids(), [pid], 'a new sidecar runs it');
    const [request] = modelRequestsWith(testHost.mock, recallPrompt);
    assert.ok(request?.includes('remember the word PELICAN'), 'the resumed session still has the first turn');
  } finally {
    await closeSession(sessionId);
  }
});

test('a fork after a steered turn, and a fork of that fork, keep the later turn: a guide prompt shifts no binding', async () => {
  const sessionId = await newSession('fork after a steer');
  const forks: string[] = [];
  try {
    let from = await lastSeqOf(testHost.client, sessionId);
    const one = await post(sessionId, { prompt: cases.prompt('first: ALPHA', { prompt: slowText(20) }) });
    await readEventsUntil(testHost.client, sessionId, (frame) => frame.event === 'text', { lastEventId: from });
    await post(sessionId, {
      prompt: cases.prompt('also GUIDED', { prompt: text('Noted GUIDED.') }),
      mode: 'steer',
    });
    await readEventsUntil(testHost.client, sessionId, isDoneOf(one.turnId), { lastEventId: from });
    from = await lastSeqOf(testHost.client, sessionId);
    const two = await post(sessionId, { prompt: cases.prompt('second: BRAVO', { prompt: text('Noted BRAVO.') }) });
    await readEventsUntil(testHost.client, sessionId, isDoneOf(two.turnId), { lastEventId: from });

    // Fork at the later turn, then fork that fork at the same turn: each must still hold BRAVO.
    let source = sessionId;
    for (const title of ['fork', 'fork of the fork']) {
      const fork = await testHost.client.call('forkSession', {
        params: { id: source },
        body: { turnId: two.turnId, title },
      });
      forks.push(fork.id);
      source = fork.id;
    }
    from = await lastSeqOf(testHost.client, source);
    const question = cases.prompt('what came second?', { prompt: text('BRAVO came second.') });
    const next = await post(source, { prompt: question });
    const frames = await readEventsUntil(testHost.client, source, isDoneOf(next.turnId), { lastEventId: from });
    assert.equal(dataOf<{ outcome: string }>(frames.at(-1)).outcome, 'completed');
    const [seen] = modelRequestsWith(testHost.mock, question);
    assert.ok(seen !== undefined, 'the model was asked');
    assert.ok(seen.includes('first: ALPHA'), 'the fork of the fork has the first turn');
    assert.ok(seen.includes('second: BRAVO'), 'and the turn it was forked at');
  } finally {
    for (const id of [sessionId, ...forks]) await closeSession(id).catch(() => undefined);
  }
});

test('fork at the first turn: a new session with the transcript up to it, which the model continues from there', async () => {
  const sessionId = await newSession('fork source');
  let forkId: string | undefined;
  try {
    let from = await lastSeqOf(testHost.client, sessionId);
    const one = await post(sessionId, { prompt: cases.prompt('first: ALPHA', { prompt: text('Noted ALPHA.') }) });
    await readEventsUntil(testHost.client, sessionId, isDoneOf(one.turnId), { lastEventId: from });
    from = await lastSeqOf(testHost.client, sessionId);
    const two = await post(sessionId, { prompt: cases.prompt('second: BRAVO', { prompt: text('Noted BRAVO.') }) });
    await readEventsUntil(testHost.client, sessionId, isDoneOf(two.turnId), { lastEventId: from });
    await closeSession(sessionId);

    const fork = await testHost.client.call('forkSession', {
      params: { id: sessionId },
      body: { turnId: one.turnId, title: 'forked' },
    });
    forkId = fork.id;
    assert.deepEqual(fork.session.forkedFrom, { sessionId, turnId: one.turnId });
    const [sourceDetail, forkDetail] = await Promise.all(
      [sessionId, forkId].map(async (id) => (await testHost.client.call('getSession', { params: { id } })).session),
    );
    assert.ok(sourceDetail!.configOptions.length > 0);
    assert.deepEqual(
      forkDetail!.configOptions,
      sourceDetail!.configOptions,
      'its settings bar is whole before it runs',
    );
    const page = await testHost.client.call('listMessages', { params: { id: forkId } });
    assert.deepEqual(
      page.messages.map((message) => [message.turnId, message.role]),
      [
        [one.turnId, 'user'],
        [one.turnId, 'assistant'],
      ],
    );
    assert.deepEqual(page.messages[1]?.content[0], { type: 'text', text: 'Noted ALPHA.' });
    assert.match(JSON.stringify(page.messages[0]?.content), /first: ALPHA/);
    const tasks = await testHost.client.call('listTasks', { query: { session_id: forkId } });
    assert.deepEqual(tasks.tasks, []);

    from = await lastSeqOf(testHost.client, forkId);
    const nextPrompt = cases.prompt('what came first?', { prompt: text('ALPHA came first.') });
    const next = await post(forkId, { prompt: nextPrompt });
    const frames = await readEventsUntil(testHost.client, forkId, isDoneOf(next.turnId), { lastEventId: from });
    assert.equal(dataOf<{ outcome: string }>(frames.at(-1)).outcome, 'completed');
    const [seen] = modelRequestsWith(testHost.mock, nextPrompt);
    assert.ok(seen !== undefined, 'the model was asked');
    assert.ok(seen.includes('first: ALPHA'), 'the fork has the first turn');
    assert.ok(!seen.includes('second: BRAVO'), 'and not the second');

    const source = await testHost.client.call('listMessages', { params: { id: sessionId } });
    assert.equal(source.turns.length, 2, 'the source is untouched');
    await assert.rejects(
      testHost.client.call('postTurn', { params: { id: sessionId }, body: { prompt: 'closed' } }),
      expectStatus(409),
    );
  } finally {
    if (forkId !== undefined) await closeSession(forkId);
  }
});

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { HostApiError, type QueuedPrompt, type SessionSnapshot, type SseFrame } from '@outrigger/host-api';
import { e2eScenario, modelRequestsWith } from './harness/scenarios.ts';
import { isDoneOf, lastSeqOf, readEventsUntil } from './harness/sseReader.ts';
import { startTestHost, type TestHost } from './harness/testHost.ts';

/*
 * *Stop must stop*, over HTTP with the real SDK, the real Claude Code and mock-anthropic: a slow scripted turn with
 * prompts queued behind it is stopped, and nothing starts; then Edit, Remove, Run now, a restart while paused, a
 * new send while paused and Resume each do what docs/host-api.md says.
 */

let testHost: TestHost;

before(async () => {
  testHost = await startTestHost({ scenario: e2eScenario });
});
after(async () => {
  await testHost?.close();
});

const dataOf = <T>(frame: SseFrame | undefined) => frame?.data as T;

async function snapshot(sessionId: string): Promise<SessionSnapshot> {
  return testHost.client.call('getSession', { params: { id: sessionId } });
}

const queueOf = (snap: SessionSnapshot) =>
  snap.queuedPrompts.map((prompt: QueuedPrompt) => [prompt.prompt, prompt.clientMessageId, prompt.paused]);

async function post(sessionId: string, prompt: string, clientMessageId: string) {
  return testHost.client.call('postTurn', { params: { id: sessionId }, body: { prompt, clientMessageId } });
}

async function untilDone(sessionId: string, turnId: string, from: number): Promise<SseFrame[]> {
  return readEventsUntil(testHost.client, sessionId, isDoneOf(turnId), { lastEventId: from });
}

/** The user prompt text each `turn_started` of the session's whole log carries, in order. */
async function startedPrompts(sessionId: string): Promise<string[]> {
  const last = await lastSeqOf(testHost.client, sessionId);
  const frames = await readEventsUntil(testHost.client, sessionId, (frame) => Number(frame.id) >= last, {
    lastEventId: 0,
  });
  return frames
    .filter((frame) => frame.event === 'turn_started')
    .map((frame) => {
      const message = dataOf<{ message: { content: { type: string; text?: string }[] } | null }>(frame).message;
      return message?.content.find((block) => block.type === 'text')?.text ?? '';
    });
}

test('Stop with prompts queued starts none; Edit, Remove, Run now, a restart, a new send and Resume behave', async () => {
  const { id: sessionId } = await testHost.client.call('createSession', {
    body: { cwd: testHost.cwd, title: 'stop must stop' },
  });
  const from = await lastSeqOf(testHost.client, sessionId);
  const slow = await post(sessionId, 'slowly, please', 'c-slow');
  await readEventsUntil(testHost.client, sessionId, (frame) => frame.event === 'text', { lastEventId: from });
  const bee = await post(sessionId, 'hello bee', 'c-bee');
  const sea = await post(sessionId, 'hello sea', 'c-sea');
  const dee = await post(sessionId, 'hello dee', 'c-dee');
  assert.deepEqual([bee.queued, sea.queued, dee.queued], [true, true, true]);

  // Stop: the running turn ends canceled, and nothing starts after it.
  const stop = await testHost.client.call('cancelTurn', { params: { id: sessionId, turnId: slow.turnId }, body: {} });
  assert.equal(stop.disposition, 'provider_active');
  const stopped = await untilDone(sessionId, slow.turnId, from);
  assert.equal(dataOf<{ outcome: string }>(stopped.at(-1)).outcome, 'canceled');
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  let snap = await snapshot(sessionId);
  assert.equal(snap.openTurn, null, 'no turn started after the stop');
  assert.equal(snap.session.runningTurnId, null);
  assert.equal(snap.session.status, 'idle', 'the header does not say running');
  assert.equal(snap.session.queuePaused, true);
  assert.deepEqual(queueOf(snap), [
    ['hello bee', 'c-bee', true],
    ['hello sea', 'c-sea', true],
    ['hello dee', 'c-dee', true],
  ]);
  assert.deepEqual(modelRequestsWith(testHost.mock, 'hello '), [], 'Claude was asked nothing queued');
  const sidebar = await testHost.client.call('listSessions', {});
  assert.equal(sidebar.sessions.find((session) => session.id === sessionId)?.queuePaused, true);

  // Edit: the new text, same place and ids, still paused. Edit of a turn that ran: 409.
  const edited = await testHost.client.call('editQueuedTurn', {
    params: { id: sessionId, turnId: bee.turnId },
    body: { prompt: 'hello bee, edited' },
  });
  assert.deepEqual(
    [edited.turnId, edited.prompt, edited.clientMessageId, edited.paused],
    [bee.turnId, 'hello bee, edited', 'c-bee', true],
  );
  await assert.rejects(
    testHost.client.call('editQueuedTurn', { params: { id: sessionId, turnId: slow.turnId }, body: { prompt: 'x' } }),
    (error: unknown) => error instanceof HostApiError && error.code === 'conflict',
  );

  // Remove: the existing withdraw of a queued prompt.
  const removed = await testHost.client.call('cancelTurn', { params: { id: sessionId, turnId: dee.turnId }, body: {} });
  assert.equal(removed.disposition, 'pre_accept');

  // Run now: only that prompt runs; the other stays paused after it.
  let at = await lastSeqOf(testHost.client, sessionId);
  const run = await testHost.client.call('runQueuedTurn', { params: { id: sessionId, turnId: sea.turnId }, body: {} });
  assert.deepEqual(run, { turnId: sea.turnId, started: true });
  const ran = await untilDone(sessionId, sea.turnId, at);
  assert.equal(dataOf<{ outcome: string }>(ran.at(-1)).outcome, 'completed');
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  snap = await snapshot(sessionId);
  assert.deepEqual(queueOf(snap), [['hello bee, edited', 'c-bee', true]]);
  assert.equal(snap.openTurn, null);
  await assert.rejects(
    testHost.client.call('runQueuedTurn', { params: { id: sessionId, turnId: sea.turnId } }),
    (error: unknown) => error instanceof HostApiError && error.code === 'conflict',
    'a prompt that ran does not run again',
  );

  // A restart while paused: the prompt is still there, still paused, and does not run.
  await testHost.restart();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  snap = await snapshot(sessionId);
  assert.deepEqual(queueOf(snap), [['hello bee, edited', 'c-bee', true]]);
  assert.equal(snap.session.queuePaused, true);
  assert.equal(snap.openTurn, null, 'the restart started nothing');

  // A new send while paused runs at once; the paused prompt stays paused after it.
  at = await lastSeqOf(testHost.client, sessionId);
  const fresh = await post(sessionId, 'hello new', 'c-new');
  assert.equal(fresh.queued, false);
  await untilDone(sessionId, fresh.turnId, at);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  snap = await snapshot(sessionId);
  assert.deepEqual(queueOf(snap), [['hello bee, edited', 'c-bee', true]]);

  // Resume: the paused prompt runs, with its edited text.
  at = await lastSeqOf(testHost.client, sessionId);
  const resumed = await testHost.client.call('resumeQueue', { params: { id: sessionId }, body: {} });
  assert.equal(resumed.startedTurnId, bee.turnId);
  assert.deepEqual(resumed.queuedPrompts, []);
  await untilDone(sessionId, bee.turnId, at);
  snap = await snapshot(sessionId);
  assert.deepEqual([snap.session.status, snap.session.queuePaused, snap.queuedPrompts.length], ['idle', false, 0]);

  // Each prompt ran once, in the order the user chose; the removed one never ran.
  assert.deepEqual(await startedPrompts(sessionId), ['slowly, please', 'hello sea', 'hello new', 'hello bee, edited']);
  assert.equal(modelRequestsWith(testHost.mock, 'hello dee').length, 0);
  await testHost.client.call('closeSession', { params: { id: sessionId } });
});

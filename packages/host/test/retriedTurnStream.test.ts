import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { readSseFrames, type SseFrame } from '@outrigger/host-api';
import { caseScripts, text } from '../src/sessions/testing/scriptedModel.ts';
import { modelRequestsWith } from './harness/scenarios.ts';
import { isDoneOf, lastSeqOf, readEventsUntil } from './harness/sseReader.ts';
import { startTestHost, type TestHost } from './harness/testHost.ts';

/*
 * A client whose `POST …/turns` (Accept: text/event-stream) lost its connection retries with the same
 * clientMessageId. When the turn already finished, everything it published lies before the log position the
 * retry sees, so the retried stream must read the turn from the start of the log, not from where the log is now.
 */

const cases = caseScripts();
let testHost: TestHost;

before(async () => {
  testHost = await startTestHost({ rules: [cases.rule] });
});
after(async () => {
  await testHost?.close();
});

const dataOf = <T = Record<string, unknown>>(frame: SseFrame | undefined) => frame?.data as T;

/** The frames of a streamed POST up to its done; fails (instead of hanging on heartbeats) if none comes. */
async function postTurnStreamed(sessionId: string, body: { prompt: string; clientMessageId: string }) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 10_000);
  const frames: SseFrame[] = [];
  try {
    const response = await testHost.client.raw('postTurn', {
      params: { id: sessionId },
      body,
      headers: { accept: 'text/event-stream' },
      signal: controller.signal,
    });
    for await (const frame of readSseFrames(response.body!)) {
      if (frame.event === 'heartbeat') continue;
      frames.push(frame);
      if (frame.event === 'done') return frames;
    }
    throw new Error('the stream ended without a done');
  } catch (error) {
    const seen = frames.map((frame) => frame.event).join(', ') || 'none';
    throw new Error(`${controller.signal.aborted ? 'no done within 10 s' : String(error)}; frames: ${seen}`);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

test('a streamed POST retried after its turn finished replays that turn to its done, without running it again', async () => {
  const { id: sessionId } = await testHost.client.call('createSession', {
    body: { cwd: testHost.cwd, title: 'retried stream' },
  });
  const prompt = cases.prompt('retried after done', { prompt: text('Answered once, replayed on retry.') });
  const body = { prompt, clientMessageId: 'retry-after-done-1' };
  const from = await lastSeqOf(testHost.client, sessionId);
  const first = await testHost.client.call('postTurn', { params: { id: sessionId }, body });
  await readEventsUntil(testHost.client, sessionId, isDoneOf(first.turnId), { lastEventId: from });

  const frames = await postTurnStreamed(sessionId, body);
  const accepted = dataOf<{ turnId: string; replayed: boolean }>(frames[0]);
  assert.equal(frames[0]?.event, 'accepted');
  assert.deepEqual([accepted.turnId, accepted.replayed], [first.turnId, true]);
  const events = frames.slice(1).map((frame) => frame.event);
  assert.equal(events[0], 'turn_started', 'the replay starts with the turn, not somewhere inside it');
  assert.ok(events.includes('text'), `the answer is replayed: ${events.join(', ')}`);
  assert.equal(events.filter((event) => event === 'done').length, 1);
  const done = dataOf<{ turnId: string; outcome: string }>(frames.at(-1));
  assert.deepEqual([done.turnId, done.outcome], [first.turnId, 'completed']);
  for (const frame of frames.slice(1)) assert.equal(dataOf<{ turnId: string }>(frame).turnId, first.turnId);
  assert.equal(modelRequestsWith(testHost.mock, prompt).length, 1, 'the retry did not ask the model again');
});

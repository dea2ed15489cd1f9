import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pollUntil } from '@outrigger/claude-sdk-sidecar/testing';
import type { SseFrame } from '@outrigger/host-api';
import { bashCall, caseScripts, slowText, text } from '../src/sessions/testing/scriptedModel.ts';
import { markedProcessesRunning } from './harness/processes.ts';
import { modelRequestsWith } from './harness/scenarios.ts';
import { isDoneOf, lastSeqOf, readEventsUntil, runTurnToDone, seqsOf } from './harness/sseReader.ts';
import { startTestHost, type TestHost } from './harness/testHost.ts';

/*
 * Claude Code killed under a running turn (issue 11's matrix), through the real host and sidecar: SIGKILL
 * while the answer streams, and while a tool runs. The turn ends with exactly one failed done, what was
 * committed stays (a replay equals the live stream), nothing the dead child started is left running, and
 * the session's next prompt is answered by a new Claude Code that resumed the transcript.
 * (The sidecar killed mid-turn: runtimeOverHttp.test.ts; the host killed mid-turn: hostCrashOverHttp.test.ts.)
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
const SLOW_TOOL = 'python3 -c "import time; time.sleep(60)"';

/** This host's processes whose command line contains `needle`. */
const processesWith = (needle: string | RegExp) => markedProcessesRunning(testHost.mark, needle);
/** The Claude Code binary (not the sidecar, whose path holds claude-sdk-sidecar). */
const claudeCode = () => processesWith(/claude-agent-sdk[^ ]*\/claude( |$)/);
const slowTools = () => processesWith('time.sleep(60)');

/** Kills the session's Claude Code once `ready` is seen; resolves with the turn's frames up to its one done. */
async function killClaudeCodeDuring(sessionId: string, turnId: string, from: number, ready: () => Promise<void>) {
  const live = readEventsUntil(testHost.client, sessionId, isDoneOf(turnId), { lastEventId: from });
  await ready();
  const victims = claudeCode();
  assert.equal(victims.length, 1, 'one Claude Code runs the session');
  process.kill(victims[0]!, 'SIGKILL');
  const frames = await live;
  const ofTurn = frames.filter((frame) => dataOf<{ turnId?: string }>(frame).turnId === turnId);
  assert.equal(ofTurn.filter((frame) => frame.event === 'done').length, 1, 'exactly one done');
  assert.equal(ofTurn.at(-1)?.event, 'done');
  const seqs = seqsOf(frames);
  assert.deepEqual(
    seqs,
    seqs.map((_, index) => from + 1 + index),
    'gapless',
  );
  assert.deepEqual(
    await readEventsUntil(testHost.client, sessionId, isDoneOf(turnId), { lastEventId: from }),
    frames,
    'a replay equals the live stream',
  );
  await pollUntil(
    () => (victims.some((pid) => claudeCode().includes(pid)) ? undefined : true),
    'the killed child to be gone',
    10_000,
  );
  return {
    frames: ofTurn,
    done: dataOf<{ outcome: string; error: { code: string | null; message: string } | null }>(ofTurn.at(-1)),
  };
}

/** The session's next prompt is answered, from the transcript the killed child left. */
async function assertResumes(sessionId: string, marker: string): Promise<void> {
  const prompt = cases.prompt(`after the kill (${marker})`, { prompt: text('Back again.') });
  const { frames } = await runTurnToDone(testHost.client, sessionId, prompt);
  assert.equal(dataOf<{ outcome: string }>(frames.at(-1)).outcome, 'completed');
  const [request] = modelRequestsWith(testHost.mock, prompt);
  assert.ok(request?.includes(marker), 'the new Claude Code has the history from before the kill');
}

test('Claude Code SIGKILLed while the answer streams: one failed done, the partial interrupted, the session resumes', async () => {
  const sessionId = (
    await testHost.client.call('createSession', { body: { cwd: testHost.cwd, title: 'kill mid-stream' } })
  ).id;
  try {
    await runTurnToDone(
      testHost.client,
      sessionId,
      cases.prompt('remember OSPREY', { prompt: text('Remembered OSPREY.') }),
    );

    const from = await lastSeqOf(testHost.client, sessionId);
    const { turnId } = await testHost.client.call('postTurn', {
      params: { id: sessionId },
      body: { prompt: cases.prompt('a long answer', { prompt: slowText(60) }) },
    });
    const { frames, done } = await killClaudeCodeDuring(sessionId, turnId, from, async () => {
      await readEventsUntil(testHost.client, sessionId, (frame) => frame.event === 'text', { lastEventId: from });
    });
    assert.equal(done.outcome, 'failed');
    assert.equal(done.error?.code, 'claude_code_exited');
    assert.match(done.error?.message ?? '', /^Claude Code process exited unexpectedly \(signal SIGKILL\)$/);
    const finals = frames.filter((frame) => frame.event === 'text' && dataOf<{ final: boolean }>(frame).final);
    assert.ok(
      finals.every((frame) => dataOf<{ interrupted: boolean }>(frame).interrupted),
      'the cut answer is never shown as complete',
    );
    const page = await testHost.client.call('listMessages', { params: { id: sessionId } });
    assert.deepEqual(
      page.turns.map((turn) => turn.status),
      ['completed', 'failed'],
    );
    const partial = page.messages.find((row) => row.turnId === turnId && row.role === 'assistant');
    assert.equal(partial?.status, 'interrupted', 'what streamed is kept, marked interrupted');
    await assertResumes(sessionId, 'OSPREY');
  } finally {
    await testHost.client.call('closeSession', { params: { id: sessionId } });
  }
});

test('Claude Code SIGKILLed while a tool runs: one failed done, the tool call closed, no tool left running, the session resumes', async () => {
  const sessionId = (
    await testHost.client.call('createSession', { body: { cwd: testHost.cwd, title: 'kill mid-tool' } })
  ).id;
  try {
    await runTurnToDone(
      testHost.client,
      sessionId,
      cases.prompt('remember HERON', { prompt: text('Remembered HERON.') }),
    );

    const from = await lastSeqOf(testHost.client, sessionId);
    const { turnId } = await testHost.client.call('postTurn', {
      params: { id: sessionId },
      body: { prompt: cases.prompt('run the slow tool', { prompt: bashCall(SLOW_TOOL) }) },
    });
    const { frames, done } = await killClaudeCodeDuring(sessionId, turnId, from, async () => {
      const asked = await readEventsUntil(testHost.client, sessionId, (frame) => frame.event === 'permission_request', {
        lastEventId: from,
      });
      const requestId = dataOf<{ interaction: { requestId: string } }>(asked.at(-1)).interaction.requestId;
      await testHost.client.call('answerInteraction', {
        params: { id: sessionId, requestId },
        body: { action: 'allow', optionId: 'allow', payload: {} },
      });
      await pollUntil(() => (slowTools().length > 0 ? true : undefined), 'the slow tool to run', 20_000);
    });
    assert.equal(done.outcome, 'failed');
    assert.equal(done.error?.code, 'claude_code_exited');
    const results = frames.filter((frame) => frame.event === 'tool_result');
    assert.ok(results.length >= 1, 'the tool call got a result');
    const page = await testHost.client.call('listMessages', { params: { id: sessionId } });
    const toolRow = page.messages.find((row) => row.turnId === turnId && row.content[0]?.type === 'tool_use');
    const result = toolRow?.content[1];
    assert.equal(result?.type, 'tool_result', 'the stored call is closed');
    assert.equal(result?.type === 'tool_result' && result.is_error, true);
    await pollUntil(() => (slowTools().length === 0 ? true : undefined), 'the orphaned tool to be gone', 15_000);
    await assertResumes(sessionId, 'HERON');
  } finally {
    await testHost.client.call('closeSession', { params: { id: sessionId } });
  }
});

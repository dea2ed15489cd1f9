import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { SseFrame } from '@outrigger/host-api';
import type { MockReply, MockRuleFunction } from '@outrigger/mock-anthropic';
import { isDoneOf, readEventsUntil, seqsOf } from './harness/sseReader.ts';
import { startTestHost, type TestHost } from './harness/testHost.ts';

/*
 * The API faults of issue 11's matrix through the whole stack (host → sidecar → real Claude Code →
 * mock-anthropic): rate limits (429) and overload (529) with and without retry-after, a server error (500),
 * an invalid API key (401), a stream cut mid-answer and a stream that stalls past the budget. Each ends its
 * turn with exactly one done of the right outcome, loses nothing committed (a replay equals the live stream,
 * gapless), and the session answers afterwards. Claude Code retries once (CLAUDE_CODE_MAX_RETRIES=1) and
 * retry-after is 1 s, so the file stays fast.
 */

/** Scripts by attempt: each prompt carries `[attempt-case:N]`; its k-th request gets reply k (the last repeats). */
function attemptScripts() {
  const scripts = new Map<string, { replies: readonly MockReply[]; attempts: number }>();
  const rule: MockRuleFunction = (view) => {
    const tag = [...view.lastUserText.matchAll(/\[attempt-case:(\d+)\]/g)].at(-1)?.[1];
    const script = tag === undefined ? undefined : scripts.get(tag);
    if (script === undefined || !view.isNewPrompt) return undefined;
    const reply = script.replies[Math.min(script.attempts, script.replies.length - 1)];
    script.attempts += 1;
    return reply;
  };
  return {
    rule,
    prompt(label: string, replies: readonly MockReply[]) {
      const tag = String(scripts.size + 1);
      const script = { replies, attempts: 0 };
      scripts.set(tag, script);
      return { prompt: `[attempt-case:${tag}] ${label}`, attempts: () => script.attempts };
    },
  };
}

const scripts = attemptScripts();
let testHost: TestHost;
let sessionId: string;

before(async () => {
  testHost = await startTestHost({
    rules: [scripts.rule],
    env: {
      CLAUDE_CODE_MAX_RETRIES: '1',
      OUTRIGGER_SIDECAR_STREAM_STALL_WARNING_MS: '500',
      OUTRIGGER_SIDECAR_STREAM_STALL_BUDGET_MS: '2000',
    },
  });
  sessionId = (await testHost.client.call('createSession', { body: { cwd: testHost.cwd, title: 'api faults' } })).id;
});
after(async () => {
  await testHost?.close();
});

const dataOf = <T = Record<string, unknown>>(frame: SseFrame | undefined) => frame?.data as T;
const answer = (words: string): MockReply => ({ content: [{ type: 'text', text: words }] });
const apiError = (status: number, retryAfterSeconds?: number): MockReply => ({
  error: { status, message: `scripted ${status}`, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) },
});

interface TurnRun {
  readonly turnId: string;
  /** This turn's frames, in order, ending with its done. */
  readonly frames: SseFrame[];
  readonly done: {
    outcome: string;
    error: { code: string | null; message: string; apiErrorStatus: number | null } | null;
  };
  /** Requests the model got for the prompt (1 + retries). */
  readonly attempts: number;
  /** The final texts of the turn, in order. */
  readonly answers: string[];
}

/** Runs one turn whose model answers its attempts with `replies`; checks the invariants every case shares. */
async function runTurn(label: string, replies: readonly MockReply[]): Promise<TurnRun> {
  const { client } = testHost;
  const from = (await client.call('getSession', { params: { id: sessionId } })).lastSeq;
  const script = scripts.prompt(label, replies);
  const { turnId } = await client.call('postTurn', { params: { id: sessionId }, body: { prompt: script.prompt } });
  const live = await readEventsUntil(client, sessionId, isDoneOf(turnId), { lastEventId: from });
  const frames = live.filter((frame) => dataOf<{ turnId?: string }>(frame).turnId === turnId);
  assert.equal(frames.filter((frame) => frame.event === 'done').length, 1, `${label}: exactly one done`);
  assert.equal(frames.at(-1)?.event, 'done', `${label}: the done is the turn's last event`);
  const seqs = seqsOf(live);
  assert.deepEqual(
    seqs,
    seqs.map((_, index) => from + 1 + index),
    `${label}: gapless`,
  );
  const replay = await readEventsUntil(client, sessionId, isDoneOf(turnId), { lastEventId: from });
  assert.deepEqual(replay, live, `${label}: a replay equals the live stream`);
  const snapshot = await client.call('getSession', { params: { id: sessionId } });
  assert.equal(snapshot.openTurn, null, `${label}: nothing left running`);
  return {
    turnId,
    frames,
    done: dataOf(frames.at(-1)),
    attempts: script.attempts(),
    answers: frames
      .filter((frame) => frame.event === 'text' && dataOf<{ final: boolean }>(frame).final)
      .filter((frame) => !dataOf<{ interrupted: boolean }>(frame).interrupted)
      .map((frame) => String(dataOf<{ text?: string }>(frame).text)),
  };
}

async function assertSessionAnswers(label: string): Promise<void> {
  const run = await runTurn(`${label}: still there?`, [answer('Still here.')]);
  assert.equal(run.done.outcome, 'completed');
  assert.deepEqual(run.answers, ['Still here.']);
}

for (const [status, name] of [
  [429, 'rate limit'],
  [529, 'overload'],
] as const) {
  for (const retryAfter of [1, undefined]) {
    const how = retryAfter === undefined ? 'without retry-after' : `with retry-after ${retryAfter} s`;
    test(`a ${status} ${name} ${how}, then an answer: Claude Code retries, the turn completes once`, async () => {
      const run = await runTurn(`${status} ${how} then ok`, [apiError(status, retryAfter), answer('After the retry.')]);
      assert.equal(run.attempts, 2, 'retried once');
      assert.equal(run.done.outcome, 'completed');
      assert.deepEqual(run.answers, ['After the retry.'], 'one answer');
    });
  }
  test(`a ${status} ${name} on every attempt: one failed done naming it, then the session answers`, async () => {
    const run = await runTurn(`${status} always`, [apiError(status, 1)]);
    assert.equal(run.attempts, 2, 'gave up after its one retry');
    assert.equal(run.done.outcome, 'failed');
    assert.equal(run.done.error?.apiErrorStatus, status);
    assert.ok((run.done.error?.message.length ?? 0) > 0, 'the error says what happened');
    await assertSessionAnswers(`after ${status}`);
  });
}

test('a 500 on every attempt: one failed done with the status, then the session answers', async () => {
  const run = await runTurn('500 always', [apiError(500, 1)]);
  assert.equal(run.done.outcome, 'failed');
  assert.equal(run.done.error?.apiErrorStatus, 500);
  assert.equal(run.done.error?.code, 'server_error');
  await assertSessionAnswers('after 500');
});

test('an invalid API key (401): one failed done, authentication_failed, no retry; the session answers after', async () => {
  const run = await runTurn('401', [apiError(401), answer('Authenticated after all.')]);
  assert.equal(run.attempts, 1, 'not retried');
  assert.equal(run.done.outcome, 'failed');
  assert.equal(run.done.error?.code, 'authentication_failed');
  assert.equal(run.done.error?.apiErrorStatus, 401);
  await assertSessionAnswers('after 401');
});

test('a stream cut mid-answer: the partial shows as interrupted, the retried answer once, never a second answer', async () => {
  const run = await runTurn('cut', [
    {
      content: [{ type: 'text', text: 'partial answer that is cut', chunkSize: 8, chunkDelayMs: 40 }],
      cutOffAfterEvents: 5,
    },
    answer('The full answer, after the retry.'),
  ]);
  assert.equal(run.attempts, 2);
  assert.equal(run.done.outcome, 'completed');
  assert.deepEqual(run.answers, ['The full answer, after the retry.'], 'one answer on the stream');
  const interrupted = run.frames.filter(
    (frame) => frame.event === 'text' && dataOf<{ interrupted: boolean }>(frame).interrupted,
  );
  assert.equal(interrupted.length, 1, 'the partial is closed once, as interrupted');
  const page = await testHost.client.call('listMessages', { params: { id: sessionId } });
  const rows = page.messages.filter((row) => row.turnId === run.turnId && row.role === 'assistant');
  assert.deepEqual(
    rows.map((row) => row.status),
    ['interrupted', 'complete'],
    'the stored transcript: the cut partial, interrupted, then the one answer',
  );
  const partial = rows[0]?.content.map((block) => (block.type === 'text' ? block.text : '')).join('') ?? '';
  assert.ok(partial.length > 0 && 'partial answer that is cut'.startsWith(partial), partial);
});

test('a stream silent past the budget: turn_stalled, then one failed done (stream_stalled), no retry; the session answers', async () => {
  const run = await runTurn('stall', [
    { content: [{ type: 'text', text: 'first words, then nothing', chunkSize: 6, chunkDelayMs: 600_000 }] },
  ]);
  const stalls = run.frames.filter((frame) => frame.event === 'turn_stalled');
  assert.ok(stalls.length >= 2, `turn_stalled every warning period before the budget (${stalls.length})`);
  const doneAt = run.frames.length - 1;
  assert.ok(
    stalls.every((frame) => run.frames.indexOf(frame) < doneAt),
    'every turn_stalled precedes the done',
  );
  assert.equal(run.done.outcome, 'failed');
  assert.equal(run.done.error?.code, 'stream_stalled');
  assert.equal(run.attempts, 1, 'a stall is not retried');
  const text = run.frames.filter((frame) => frame.event === 'text' && dataOf<{ final: boolean }>(frame).final);
  assert.ok(
    text.every((frame) => dataOf<{ interrupted: boolean }>(frame).interrupted),
    'what streamed before the stall is interrupted, not an answer',
  );
  await assertSessionAnswers('after the stall');
});

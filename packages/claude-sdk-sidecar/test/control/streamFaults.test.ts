import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { MockReply } from '@outrigger/mock-anthropic';
import { youngestChild } from '../../src/testing/processTree.ts';
import { allowApproval, assertOk, type ControlSession, openControlSession } from './controlSession.ts';
import { bashCall } from './scriptedModel.ts';

/*
 * API stream faults (issue 11) through the real sidecar process and the real Claude Code binary against
 * mock-anthropic. The stall budget: an API stream that is open and silent is reported with `turn_stalled`
 * every warning period and stopped at the budget with one `turn_failed {code: 'stream_stalled'}`, without a
 * retry; a tool that is quiet for longer than the budget is no stall. Small timers (1 s warnings, 3.5 s
 * budget) keep it fast. A stream cut mid-answer: Claude Code retries it, and the cut partial ends with
 * `assistant_failed`, never as a second answer.
 */

const WARNING_MS = 1_000;
const BUDGET_MS = 3_500;

describe('API stream faults through the real sidecar and Claude Code', () => {
  let session: ControlSession;

  before(async () => {
    session = await openControlSession({
      sidecarEnv: {
        OUTRIGGER_SIDECAR_STREAM_STALL_WARNING_MS: String(WARNING_MS),
        OUTRIGGER_SIDECAR_STREAM_STALL_BUDGET_MS: String(BUDGET_MS),
      },
    });
  });

  after(async () => {
    await session?.close();
  });

  const newTurnId = (label: string): string => `${label}-${randomUUID()}`;

  /** Runs a turn whose model answers with `reply`; resolves with the turn's one terminal and its prompt. */
  const runStalled = async (label: string, reply: MockReply) => {
    const turnId = newTurnId(label);
    const prompt = session.model.prompt('Answer slowly.', { prompt: reply });
    assertOk(await session.exec(turnId, prompt), 'exec');
    const terminal = await session.waitForTerminal(turnId, 30_000);
    return { turnId, prompt, terminal };
  };

  const assertStoppedForStall = (
    turnId: string,
    prompt: string,
    terminal: { type: string; payload: Record<string, unknown> },
  ) => {
    assert.equal(terminal.type, 'turn_failed', JSON.stringify(terminal.payload));
    assert.equal(terminal.payload.code, 'stream_stalled');
    assert.match(String(terminal.payload.error), /^Claude API stream stalled: no data for \d+ms/);
    const stalls = session.eventsOf('turn_stalled', turnId);
    const silences = stalls.map((line) => Number(line.payload.silentMs));
    assert.equal(stalls.length, 3, `one turn_stalled per second of silence before the budget: ${silences}`);
    silences.forEach((silentMs, index) => {
      assert.ok(silentMs >= (index + 1) * WARNING_MS && silentMs < BUDGET_MS, `silentMs ${silentMs}`);
    });
    assert.ok(
      stalls.every((line) => line.index < (session.terminalsOf(turnId)[0]?.index ?? 0)),
      'every turn_stalled comes before the terminal',
    );
    assert.equal(session.terminalsOf(turnId).length, 1, 'exactly one terminal');
    const requests = session.model.views().filter((view) => view.isNewPrompt && view.lastUserText.includes(prompt));
    assert.equal(requests.length, 1, 'no automatic retry of the stalled request');
  };

  /** A later turn completes in the same session. */
  const assertSessionGoesOn = async (label: string) => {
    const turnId = newTurnId(label);
    const prompt = session.model.prompt('Say done.', { prompt: { content: [{ type: 'text', text: 'Done.' }] } });
    assertOk(await session.exec(turnId, prompt), 'exec');
    const terminal = await session.waitForTerminal(turnId);
    assert.equal(terminal.type, 'turn_completed', JSON.stringify(terminal.payload));
  };

  it('a stream that goes silent after its first chunk is reported, then stopped with stream_stalled', async () => {
    const claude = () => youngestChild(session.sidecar.pid, 'claude');
    const before = claude();
    const { turnId, prompt, terminal } = await runStalled('silent-after-chunk', {
      content: [
        { type: 'text', text: 'partial and then nothing for ten minutes', chunkSize: 8, chunkDelayMs: 600_000 },
      ],
    });
    assert.ok(session.eventsOf('assistant_delta', turnId).length > 0, 'precondition: the first chunk streamed');
    assertStoppedForStall(turnId, prompt, terminal);
    assert.deepEqual(
      session.eventsOf('assistant_failed', turnId).map((line) => line.payload.content),
      ['partial '],
      'the interrupted partial ends failed',
    );
    assert.deepEqual(session.eventsOf('assistant_completed', turnId), [], 'nothing of it reads as an answer');
    await assertSessionGoesOn('after-silent-chunk');
    assert.equal(claude(), before, 'the interrupted Query went on serving the session');
  });

  it('a request that never gets an answer at all is stopped the same way', async () => {
    const { turnId, prompt, terminal } = await runStalled('no-answer', { stall: true });
    assertStoppedForStall(turnId, prompt, terminal);
    await assertSessionGoesOn('after-no-answer');
  });

  it('a Bash command quiet for longer than the budget is no stall', async () => {
    const turnId = newTurnId('quiet-tool');
    const prompt = session.model.prompt('Run the quiet command.', {
      prompt: bashCall('python3 -c "import time; time.sleep(5)"'),
    });
    assertOk(await session.exec(turnId, prompt), 'exec');
    await allowApproval(session, turnId);
    const terminal = await session.waitForTerminal(turnId, 30_000);
    assert.equal(terminal.type, 'turn_completed', JSON.stringify(terminal.payload));
    assert.deepEqual(session.eventsOf('turn_stalled', turnId), [], 'a running tool has no open stream');
  });

  it('a stream cut mid-answer and retried by Claude Code: the partial ends failed, the full answer completes', async () => {
    const turnId = newTurnId('cut');
    let attempts = 0;
    const prompt = session.model.prompt('Answer, if the line holds.', {
      prompt: () => {
        attempts += 1;
        return attempts === 1
          ? // message_start, content_block_start and three deltas, then the connection drops.
            {
              content: [{ type: 'text', text: 'partial answer that is cut', chunkSize: 8, chunkDelayMs: 40 }],
              cutOffAfterEvents: 5,
            }
          : { content: [{ type: 'text', text: 'The full answer, after the retry.', chunkSize: 8 }] };
      },
    });
    assertOk(await session.exec(turnId, prompt), 'exec');
    const terminal = await session.waitForTerminal(turnId, 30_000);
    assert.equal(terminal.type, 'turn_completed', JSON.stringify(terminal.payload));
    assert.equal(attempts, 2, 'Claude Code retried the cut request once');

    const failed = session.eventsOf('assistant_failed', turnId).map((line) => line.payload);
    const completed = session.eventsOf('assistant_completed', turnId).map((line) => line.payload);
    assert.deepEqual(
      completed.map((payload) => payload.content),
      ['The full answer, after the retry.'],
      'the only completed answer is the full one',
    );
    assert.equal(failed.length, 1, `the cut partial ends once, failed: ${JSON.stringify(failed)}`);
    const partial = failed[0] as { messageId: string; content: string };
    assert.ok('partial answer that is cut'.startsWith(partial.content) && partial.content.length > 0, partial.content);
    assert.notEqual(partial.messageId, completed[0]?.messageId, 'the partial and the answer are different messages');
    const partialDeltas = session
      .eventsOf('assistant_delta', turnId)
      .filter((line) => line.payload.messageId === partial.messageId);
    assert.ok(partialDeltas.length > 0, 'the partial streamed before it was cut');
    assert.equal(partialDeltas.at(-1)?.payload.snapshot, partial.content, 'it ends with what was streamed');
    const failedAt = session.eventsOf('assistant_failed', turnId)[0]?.index ?? -1;
    const answerStart = session
      .eventsOf('assistant_delta', turnId)
      .find((line) => line.payload.messageId === completed[0]?.messageId)?.index;
    assert.ok(answerStart !== undefined && failedAt < answerStart, 'the partial is closed before the retry streams');
  });

  it('wrote only well-formed protocol lines whose events match their schemas', () => {
    assert.deepEqual(session.sidecar.protocolErrors, []);
    assert.deepEqual(session.model.unmatched(), []);
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { QueryShutdownStage } from '../diagnostics/cancelDiagnostics.ts';
import { FakeClaudeQuery } from '../testing/fakeClaudeQuery.ts';
import { SHUTDOWN_STAGES_AFTER_INTERRUPT_ACK } from '../testing/shutdownStages.ts';
import { PromptQueue } from './promptQueue.ts';
import { QueryGeneration, QueryShutdownTimeoutError } from './queryGeneration.ts';

function generation(configure: (query: FakeClaudeQuery) => void = () => undefined) {
  const prompts = new PromptQueue();
  const query = new FakeClaudeQuery({ prompt: prompts, options: {} });
  configure(query);
  return { query, generation: new QueryGeneration({ id: 7, query, prompts }) };
}

/** A generation whose consumer ignores every message and the end of the stream. */
function consumingGeneration(configure?: (query: FakeClaudeQuery) => void) {
  const made = generation(configure);
  made.generation.startConsuming(
    () => undefined,
    () => undefined,
  );
  return made;
}

/** Shuts the generation down with an interrupt, recording the stages it reports. */
async function interruptingShutdown(
  g: QueryGeneration,
  budgets: { interruptTimeoutMs: number; drainTimeoutMs: number },
) {
  const record = recorder();
  const result = await g.shutdown({ interrupt: true, ...budgets, observe: record.observe });
  return { result, record };
}

function recorder() {
  const stages: QueryShutdownStage[] = [];
  return {
    stages,
    observe: (stage: QueryShutdownStage) => stages.push(stage),
    names: () => stages.map((s) => s.stage),
  };
}

test('an acknowledged interrupt still closes the transport, then waits for the drain', async () => {
  const { query, generation: g } = consumingGeneration();
  const { result, record } = await interruptingShutdown(g, { interruptTimeoutMs: 50, drainTimeoutMs: 50 });
  assert.equal(result.terminationMode, 'interrupt_acknowledged');
  assert.deepEqual(query.calls, ['interrupt', 'close']);
  assert.deepEqual(record.names(), SHUTDOWN_STAGES_AFTER_INTERRUPT_ACK);
  assert.ok(record.stages.every((stage) => stage.generationId === 7));
});

test('an interrupt that never answers times out and the transport is closed', async () => {
  const { query, generation: g } = consumingGeneration((q) => {
    q.interruptBehavior = 'hang';
  });
  const { result, record } = await interruptingShutdown(g, { interruptTimeoutMs: 10, drainTimeoutMs: 50 });
  assert.equal(result.terminationMode, 'transport_closed');
  assert.ok(query.calls.includes('close'));
  assert.deepEqual(record.names().slice(0, 4), [
    'shutdown_started',
    'interrupt_started',
    'interrupt_timed_out',
    'query_close_started',
  ]);
});

test('a consumer that never drains fails the shutdown at the consumption stage', async () => {
  const { query, generation: g } = generation();
  g.startConsuming(
    () => new Promise(() => undefined),
    () => undefined,
  );
  query.push({ type: 'keep_alive' } as never);
  await new Promise((resolve) => setTimeout(resolve, 5));
  const record = recorder();
  const shutdown = g.shutdown({ interrupt: false, drainTimeoutMs: 10, observe: record.observe });
  await assert.rejects(shutdown, (error: unknown) => {
    assert.ok(error instanceof QueryShutdownTimeoutError);
    assert.equal(error.message, 'Claude SDK Query consumption timed out after 10ms');
    assert.equal(error.stage, 'consumption');
    return true;
  });
  assert.equal(record.names().at(-1), 'consumption_timed_out');
  assert.ok(!record.names().includes('interrupt_started'), 'no interrupt was asked for');
});

test('a revoked generation routes nothing more and does not report its end', async () => {
  const { query, generation: g } = generation();
  const routed: string[] = [];
  let ended = false;
  g.startConsuming(
    (message) => {
      routed.push(message.type);
    },
    () => {
      ended = true;
    },
  );
  query.push({ type: 'first' } as never);
  await new Promise((resolve) => setTimeout(resolve, 5));
  g.revoke();
  query.push({ type: 'late' } as never);
  query.end();
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(routed, ['first']);
  assert.equal(ended, false);
  assert.equal(g.prompts.push({} as never), false, 'the prompt queue is closed');
});

test('a stream that ends on its own is reported once with its failure', async () => {
  const { query, generation: g } = generation();
  const failures: unknown[] = [];
  g.startConsuming(
    () => undefined,
    (_owner, failure) => failures.push(failure),
  );
  const error = new Error('Claude Code process exited with code 1');
  query.fail(error);
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(failures, [error]);
});

test('withdrawPrompt asks Claude Code to drop the queued prompt and reports its answer', async () => {
  for (const answer of [true, false]) {
    const { query, generation: g } = consumingGeneration((q) => q.answerWithdrawals(answer));
    const record = recorder();
    assert.equal(await g.withdrawPrompt('prompt-uuid', { timeoutMs: 50, observe: record.observe }), answer);
    assert.deepEqual(query.calls, ['cancelAsyncMessage:prompt-uuid'], 'nothing else happens to the Query');
    assert.equal(g.revoked, false);
    assert.deepEqual(record.names(), ['prompt_withdraw_started', 'prompt_withdraw_answered']);
    assert.equal((record.stages[1] as { withdrawn?: unknown }).withdrawn, answer);
  }
});

test('withdrawPrompt is false when the request fails, is not answered in time, or cannot be made', async () => {
  const failing = consumingGeneration((q) => q.answerWithdrawals(new Error('control request failed')));
  const failed = recorder();
  assert.equal(await failing.generation.withdrawPrompt('u', { timeoutMs: 50, observe: failed.observe }), false);
  assert.deepEqual(failed.names(), ['prompt_withdraw_started', 'prompt_withdraw_failed']);

  const hanging = consumingGeneration((q) => q.answerWithdrawals('hang'));
  const timedOut = recorder();
  assert.equal(await hanging.generation.withdrawPrompt('u', { timeoutMs: 20, observe: timedOut.observe }), false);
  assert.deepEqual(timedOut.names(), ['prompt_withdraw_started', 'prompt_withdraw_timed_out']);

  const unsupported = consumingGeneration();
  const none = recorder();
  assert.equal(await unsupported.generation.withdrawPrompt('u', { timeoutMs: 20, observe: none.observe }), false);
  assert.deepEqual(none.names(), [], 'a Query without the request is not asked');

  const revoked = consumingGeneration((q) => q.answerWithdrawals(true));
  revoked.generation.revoke();
  assert.equal(await revoked.generation.withdrawPrompt('u', { timeoutMs: 20 }), false);
  assert.deepEqual(revoked.query.calls, [], 'a revoked generation is never asked');
});

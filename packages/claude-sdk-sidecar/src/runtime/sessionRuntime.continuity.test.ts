import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CanUseTool, SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { withDiagnosticSinkForTest } from '../diagnostics/diagnosticLine.ts';
import {
  assistantText,
  backgroundTasksChanged,
  promptEcho,
  sessionIdle,
  successResult,
  taskNotificationSystem,
} from '../testing/sdkMessageBuilders.ts';
import {
  execPayload,
  type Harness,
  harness,
  type Recorded,
  startedWithTurn,
  TERMINALS,
} from '../testing/sessionRuntimeHarness.ts';
import type { ClaudeQuery } from './claudeQuery.ts';

/*
 * Continuity rules of the session runtime on a fake Query: a user exec takes over from a synthetic
 * continuation turn (reference §3.5), and usage falls back to the result's own figures when Claude Code
 * gives no context-window snapshot (reference §2.2 usage_updated (c), §3.8).
 */

const FOLLOW_UP = 'background follow-up';
const FOLLOW_UP_REST = 'rest of the background follow-up';

function taskNotificationResult(): SDKMessage {
  return successResult({ origin: { kind: 'task-notification' } });
}

function terminalsOf(h: Harness, turnId: string): Recorded[] {
  return h.events.filter((event) => TERMINALS.has(event.type) && event.payload.turnId === turnId);
}

function assistantTextOf(h: Harness, turnId: string): string[] {
  return h.events
    .filter((event) => event.type === 'assistant_completed' && event.payload.turnId === turnId)
    .map((event) => String(event.payload.content));
}

/** Settles t1, then lets background output open a synthetic continuation turn; resolves with its id. */
async function withSyntheticContinuation(h: Harness): Promise<string> {
  const correlation = await startedWithTurn(h);
  h.query().push(promptEcho(correlation), assistantText('answer'), successResult());
  await h.terminalOf('t1');
  h.query().push(assistantText(FOLLOW_UP));
  const started = await h.waitFor(
    (event) => event.type === 'turn_started' && event.payload.synthetic === true,
    'the synthetic continuation turn',
  );
  const syntheticId = String(started.payload.turnId);
  await h.waitFor(
    (event) => event.type === 'assistant_completed' && event.payload.turnId === syntheticId,
    'the follow-up output on the synthetic turn',
  );
  assert.deepEqual(terminalsOf(h, syntheticId), [], 'precondition: the continuation is still running');
  return syntheticId;
}

/** Background work's permission request after t1 settled: the request and its synthetic turn's start. */
async function backgroundApprovalAfterSettle(h: Harness) {
  const correlation = await startedWithTurn(h);
  h.query().push(promptEcho(correlation), assistantText('answer'), successResult());
  await h.terminalOf('t1');
  const canUseTool = h.query().options.canUseTool;
  assert.ok(canUseTool, 'the Query has a canUseTool callback');
  const options: Parameters<CanUseTool>[2] = {
    signal: new AbortController().signal,
    toolUseID: 'toolu_background',
    requestId: 'sdk-request',
    suggestions: [],
  };
  const decision = canUseTool('Bash', { command: 'touch file' }, options);
  const requested = await h.waitFor((event) => event.type === 'approval_requested', 'the approval request');
  const turnId = String(requested.payload.turnId);
  const started = h.eventsOf('turn_started');
  assert.deepEqual(
    started.map((event) => event.payload),
    [{ turnId, synthetic: true }],
    'the request is published on a synthetic turn opened for it',
  );
  assert.ok(
    h.indexOf((event) => event.type === 'turn_started') < h.indexOf((event) => event.type === 'approval_requested'),
    'the synthetic turn starts before its request',
  );
  const answered = await h.runtime.submitInteractive({
    agentSessionId: 's1',
    turnId,
    requestId: String(requested.payload.requestId),
    action: 'allow',
    optionId: 'allow',
    payload: {},
  });
  assert.equal(answered.disposition, 'answered');
  assert.deepEqual(await decision, { behavior: 'allow', updatedInput: { command: 'touch file' } });
  return turnId;
}

test('background work asking for permission after its turn settled gets a synthetic turn; session idle ends it once', async (t) => {
  const h = harness();
  t.after(() => h.runtime.close());
  const turnId = await backgroundApprovalAfterSettle(h);
  assert.deepEqual(terminalsOf(h, turnId), [], 'the turn runs on after the answer');
  h.query().push(sessionIdle());
  await h.terminalOf(turnId);
  h.query().push(sessionIdle(), backgroundTasksChanged());
  await h.waitFor((event) => event.type === 'background_tasks_changed', 'the messages after a second idle');
  assert.deepEqual(
    terminalsOf(h, turnId).map((event) => event.payload),
    [{ turnId, stopReason: 'background_agent_idle' }],
  );
});

test('a synthetic turn opened for a background request ends with the follow-up result, once', async (t) => {
  const h = harness();
  t.after(() => h.runtime.close());
  const turnId = await backgroundApprovalAfterSettle(h);
  h.query().push(assistantText('follow-up after the approval'), successResult());
  await h.terminalOf(turnId);
  h.query().push(sessionIdle(), backgroundTasksChanged());
  await h.waitFor((event) => event.type === 'background_tasks_changed', 'the messages after the idle');
  assert.deepEqual(assistantTextOf(h, turnId), ['follow-up after the approval']);
  assert.deepEqual(
    terminalsOf(h, turnId).map((event) => event.type),
    ['turn_completed'],
  );
  assert.equal(h.eventsOf('turn_started').length, 1, 'the follow-up output reused the synthetic turn');
});

test('the first root output of an awaited continuation is observed as a continuation candidate of the reserved turn', async (t) => {
  const h = harness();
  t.after(() => h.runtime.close());
  const correlation = await startedWithTurn(h);
  h.query().push(promptEcho(correlation), assistantText('answer'), successResult());
  await h.terminalOf('t1');
  h.query().push(taskNotificationSystem('task-1', 'completed'));
  const reserved = await h.waitFor(
    (event) => event.type === 'turn_started' && event.payload.synthetic === true,
    'the reserved continuation turn',
  );
  const candidates = () =>
    h.eventsOf('sdk_lifecycle_observed').filter((event) => event.payload.rootContinuationCandidate === true);
  assert.deepEqual(candidates(), [], 'precondition: no root output yet');
  h.query().push(assistantText(FOLLOW_UP), assistantText(FOLLOW_UP_REST));
  await h.waitFor(
    (event) => event.type === 'assistant_completed' && event.payload.content === FOLLOW_UP_REST,
    'the rest of the follow-up',
  );
  assert.deepEqual(
    candidates().map((event) => event.payload.activeTurnIdBefore),
    [reserved.payload.turnId],
    'only the output that started the awaited continuation is a candidate',
  );
});

test('a new exec closes the active synthetic turn with background_agent before the new turn starts', async (t) => {
  const h = harness();
  t.after(() => h.runtime.close());
  const syntheticId = await withSyntheticContinuation(h);

  await h.runtime.exec(execPayload('t2'));
  assert.deepEqual(
    terminalsOf(h, syntheticId).map((event) => event.payload),
    [{ turnId: syntheticId, stopReason: 'background_agent' }],
    'the exec itself closed the synthetic turn',
  );
  assert.equal(h.query().prompts.length, 1, "the synthetic turn ended before t2's prompt reached Claude Code");

  const prompts = await h.query().waitForPrompts(2);
  const correlation = prompts[1]?.uuid;
  assert.ok(correlation);
  h.query().push(promptEcho(correlation), assistantText('answer of t2'), successResult());
  const terminal = await h.terminalOf('t2');
  assert.deepEqual(terminal.payload, { turnId: 't2', providerTurnId: correlation, stopReason: 'end_turn' });
  assert.deepEqual(assistantTextOf(h, 't2'), ['answer of t2']);
  assert.ok(
    h.indexOf((event) => TERMINALS.has(event.type) && event.payload.turnId === syntheticId) <
      h.indexOf((event) => event.type === 'provider_turn_identity_resolved' && event.payload.turnId === 't2'),
    "the synthetic terminal precedes t2's identity",
  );
  assert.equal(terminalsOf(h, syntheticId).length, 1, 'the synthetic turn ended exactly once');
});

test("the closed continuation's remaining output never becomes the new turn's output", async (t) => {
  // Claude Code writes a prompt queued behind a running follow-up to the transcript at once, so the
  // identity barrier can bind it before its echo (observed with the real binary).
  const h = harness({
    resolveTurnIdentity: async (request) => ({
      providerTurnId: request.correlationId,
      providerCheckpointMessageId: request.correlationId,
    }),
  });
  t.after(() => h.runtime.close());
  const syntheticId = await withSyntheticContinuation(h);

  await h.runtime.exec(execPayload('t2'));
  const prompts = await h.query().waitForPrompts(2);
  const correlation = prompts[1]?.uuid;
  assert.ok(correlation);
  // A prompt sent during a follow-up runs after it ('later' priority): the follow-up finishes first.
  h.query().push(
    assistantText(FOLLOW_UP_REST),
    taskNotificationResult(),
    promptEcho(correlation),
    assistantText('answer of t2'),
    successResult(),
    sessionIdle(),
  );
  // The barrier's transcript binding writes diagnostics; they are not what this test is about.
  const terminal = await withDiagnosticSinkForTest(() => h.terminalOf('t2'));
  assert.deepEqual(
    { terminal: terminal.payload, text: assistantTextOf(h, 't2') },
    {
      terminal: { turnId: 't2', providerTurnId: correlation, stopReason: 'end_turn' },
      text: ['answer of t2'],
    },
    't2 ends on its own result and carries only its own answer',
  );
  assert.equal(terminalsOf(h, syntheticId).length, 1, 'the synthetic turn ended exactly once');
});

/** A root result with distinctive usage figures, as the fallback must pass them on. */
const RESULT_FIGURES = {
  usage: { input_tokens: 120, output_tokens: 34, cache_read_input_tokens: 7 },
  modelUsage: {
    'claude-test[1m]': { inputTokens: 120, outputTokens: 34, costUSD: 0.25, contextWindow: 1_000_000 },
  },
  total_cost_usd: 0.25,
};

/** Runs t1 to its result with `contextUsage` as the Query's getContextUsage; resolves with its usage_updated. */
async function usageAfterTurn(contextUsage: ClaudeQuery['getContextUsage']): Promise<Recorded> {
  const h = harness();
  try {
    const correlation = await startedWithTurn(h);
    const query: ClaudeQuery = h.query();
    query.getContextUsage = contextUsage;
    h.query().push(promptEcho(correlation), assistantText('answer'), successResult(RESULT_FIGURES));
    await h.terminalOf('t1');
    const usage = await h.waitFor((event) => event.type === 'usage_updated', 'usage_updated after the result');
    assert.equal(h.eventsOf('usage_updated').length, 1, 'one usage_updated per result');
    return usage;
  } finally {
    await h.runtime.close();
  }
}

const FALLBACK = {
  turnId: 't1',
  usage: RESULT_FIGURES.usage,
  modelUsage: RESULT_FIGURES.modelUsage,
  totalCostUsd: RESULT_FIGURES.total_cost_usd,
};

test('without getContextUsage the result usage is the fallback usage_updated', async () => {
  assert.deepEqual((await usageAfterTurn(undefined)).payload, FALLBACK);
});

test('a failing getContextUsage falls back to the result usage', async () => {
  const usage = await usageAfterTurn(async () => {
    throw new Error('control request failed');
  });
  assert.deepEqual(usage.payload, FALLBACK);
});

test('a snapshot without a token count is unavailable: the result usage is the fallback', async () => {
  const usage = await usageAfterTurn(async () => ({ maxTokens: 200_000, isAutoCompactEnabled: true }));
  assert.deepEqual(usage.payload, FALLBACK);
});

test("a snapshot becomes the context window, sized by the result's figure for the active model", async () => {
  const usage = await usageAfterTurn(async () => ({
    totalTokens: 4_321,
    maxTokens: 200_000,
    isAutoCompactEnabled: false,
    model: 'claude-test',
  }));
  assert.deepEqual(usage.payload, {
    turnId: 't1',
    contextWindow: { usedTokens: 4_321, totalTokens: 1_000_000, compactsAutomatically: false },
  });
});

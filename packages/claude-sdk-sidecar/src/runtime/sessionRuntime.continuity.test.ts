import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CanUseTool, SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { withDiagnosticSinkForTest } from '../diagnostics/diagnosticLine.ts';
import {
  assistantText,
  backgroundTasksChanged,
  errorResult,
  promptEcho,
  sessionIdle,
  successResult,
  taskNotificationSystem,
  taskStarted,
} from '../testing/sdkMessageBuilders.ts';
import {
  canceledBeforeAcceptance,
  cancelPayload,
  execPayload,
  type Harness,
  harness,
  type Recorded,
  startedWithTurn,
  TERMINALS,
} from '../testing/sessionRuntimeHarness.ts';
import type { ClaudeQuery } from './claudeQuery.ts';

/*
 * Continuity rules of the session runtime on a fake Query: a user prompt queued behind a background
 * follow-up takes over from the turn holding it when Claude Code starts the prompt (reference §3.5, with
 * the difference in protocol.md), and usage falls back to the result's own figures when Claude Code
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

/** Sends t2's exec and resolves with the correlation uuid of its prompt, once Claude Code has it. */
async function execT2(h: Harness): Promise<string> {
  await h.runtime.exec(execPayload('t2'));
  const prompts = await h.query().waitForPrompts(2);
  const correlation = prompts[1]?.uuid;
  assert.ok(correlation);
  return correlation;
}

/**
 * The follow-up's output is on the holder, which ends once with background_agent before t2 is bound; t2
 * is bound to its own echo and carries only its own answer.
 */
function assertFollowUpThenT2(h: Harness, holderId: string, holderText: string[], correlation: string): void {
  assert.deepEqual(
    { holder: assistantTextOf(h, holderId), t2: assistantTextOf(h, 't2') },
    { holder: holderText, t2: ['answer of t2'] },
    'the follow-up stays on its turn; t2 carries only its own answer',
  );
  assert.deepEqual(
    terminalsOf(h, holderId).map(({ type, payload }) => ({ type, stopReason: payload.stopReason })),
    [{ type: 'turn_completed', stopReason: 'background_agent' }],
    "the holder ended once, when t2's prompt started",
  );
  assert.deepEqual(
    terminalsOf(h, 't2').map((event) => event.payload),
    [{ turnId: 't2', providerTurnId: correlation, stopReason: 'end_turn' }],
  );
  assert.deepEqual(
    h
      .eventsOf('provider_turn_identity_resolved')
      .filter((event) => event.payload.turnId === 't2')
      .map((e) => e.payload),
    [{ turnId: 't2', providerTurnId: correlation }],
    't2 is bound once, from its echo',
  );
  assert.ok(
    h.indexOf((event) => TERMINALS.has(event.type) && event.payload.turnId === holderId) <
      h.indexOf((event) => event.type === 'provider_turn_identity_resolved' && event.payload.turnId === 't2'),
    "the holder's terminal precedes t2's identity",
  );
}

test('an exec leaves a running continuation alone; the follow-up keeps its turn until the prompt starts', async (t) => {
  const h = harness();
  t.after(() => h.runtime.close());
  const syntheticId = await withSyntheticContinuation(h);
  const correlation = await execT2(h);
  assert.deepEqual(terminalsOf(h, syntheticId), [], 'the exec ends nothing: Claude Code runs the follow-up first');

  // Measured: the follow-up runs to its task-notification result, then the prompt starts, with no idle between.
  h.query().push(assistantText(FOLLOW_UP_REST), taskNotificationResult());
  await h.waitFor(
    (event) => event.type === 'assistant_completed' && event.payload.content === FOLLOW_UP_REST,
    'the rest of the follow-up',
  );
  assert.deepEqual(terminalsOf(h, syntheticId), [], 'the follow-up result alone ends nothing');
  h.query().push(promptEcho(correlation), assistantText('answer of t2'), successResult(), sessionIdle());
  await h.terminalOf('t2');
  assertFollowUpThenT2(h, syntheticId, [FOLLOW_UP, FOLLOW_UP_REST], correlation);
  assert.equal(h.eventsOf('turn_started').length, 1, 'no continuation is reserved after t2');
});

test("the follow-up's output never goes to the queued turn, even when its transcript binding is ready", async (t) => {
  // Claude Code writes a prompt queued behind a running follow-up to the transcript at once, so the
  // identity barrier could bind it before its echo (observed with the real binary).
  let resolverCalls = 0;
  const h = harness({
    resolveTurnIdentity: async (request) => {
      resolverCalls++;
      return { providerTurnId: request.correlationId, providerCheckpointMessageId: request.correlationId };
    },
  });
  t.after(() => h.runtime.close());
  const syntheticId = await withSyntheticContinuation(h);
  const correlation = await execT2(h);
  h.query().push(
    assistantText(FOLLOW_UP_REST),
    taskNotificationResult(),
    promptEcho(correlation),
    assistantText('answer of t2'),
    successResult(),
    sessionIdle(),
  );
  await withDiagnosticSinkForTest(() => h.terminalOf('t2'));
  assertFollowUpThenT2(h, syntheticId, [FOLLOW_UP, FOLLOW_UP_REST], correlation);
  assert.equal(resolverCalls, 0, 'no output ever waited on t2 before its echo');
});

test('a reserved continuation whose follow-up has not started ends at the prompt; the follow-up runs after t2 on a new one', async (t) => {
  const h = harness();
  t.after(() => h.runtime.close());
  const correlation1 = await startedWithTurn(h);
  h.query().push(promptEcho(correlation1), assistantText('answer'), successResult());
  await h.terminalOf('t1');
  h.query().push(taskNotificationSystem('task-1', 'completed'));
  const reserved = await h.waitFor(
    (event) => event.type === 'turn_started' && event.payload.synthetic === true,
    'the reserved continuation',
  );
  const reservedId = String(reserved.payload.turnId);
  const correlation = await execT2(h);
  // Claude Code started t2 before the follow-up (not seen for background Bash; the follow-up is still owed).
  h.query().push(promptEcho(correlation), assistantText('answer of t2'), successResult());
  await h.terminalOf('t2');
  h.query().push(assistantText(FOLLOW_UP), taskNotificationResult(), sessionIdle());
  const later = await h.waitFor(
    (event) => event.type === 'turn_started' && event.payload.turnId !== reservedId,
    'the continuation reserved after t2',
  );
  const laterId = String(later.payload.turnId);
  await h.terminalOf(laterId);
  assertFollowUpThenT2(h, reservedId, [], correlation);
  assert.deepEqual(
    { text: assistantTextOf(h, laterId), terminals: terminalsOf(h, laterId).map((event) => event.payload) },
    { text: [FOLLOW_UP], terminals: [{ turnId: laterId, stopReason: 'background_agent_idle' }] },
  );
});

test('a root turn retained for its follow-up ends at the prompt; t2 is activated and settles on its own result', async (t) => {
  const h = harness();
  t.after(() => h.runtime.close());
  const correlation1 = await startedWithTurn(h);
  // The job ends while t1 runs, so t1 is retained for the follow-up that Claude Code runs right after it.
  h.query().push(
    promptEcho(correlation1),
    taskStarted('task-1', 'toolu_1', 'local_bash'),
    taskNotificationSystem('task-1', 'completed'),
    assistantText('answer'),
    successResult(),
    assistantText(FOLLOW_UP),
  );
  await h.waitFor(
    (event) => event.type === 'assistant_completed' && event.payload.content === FOLLOW_UP,
    'the follow-up on the retained turn',
  );
  assert.deepEqual(terminalsOf(h, 't1'), [], 'precondition: t1 is retained');
  const correlation = await execT2(h);
  h.query().push(
    taskNotificationResult(),
    promptEcho(correlation),
    assistantText('answer of t2'),
    successResult(),
    sessionIdle(),
  );
  await h.terminalOf('t2');
  assertFollowUpThenT2(h, 't1', ['answer', FOLLOW_UP], correlation);
  assert.deepEqual(h.eventsOf('turn_started'), [], 'no synthetic turn was needed');
});

test('a prompt queued behind a follow-up that never starts runs once the continuation times out', async (t) => {
  const h = harness({ timers: { continuationStartTimeoutMs: 30 } });
  t.after(() => h.runtime.close());
  const correlation1 = await startedWithTurn(h);
  h.query().push(promptEcho(correlation1), assistantText('answer'), successResult());
  await h.terminalOf('t1');
  h.query().push(taskNotificationSystem('task-1', 'completed'));
  const reserved = await h.waitFor(
    (event) => event.type === 'turn_started' && event.payload.synthetic === true,
    'the reserved continuation',
  );
  const reservedId = String(reserved.payload.turnId);
  const correlation = await execT2(h);
  const terminal = await h.terminalOf(reservedId);
  assert.deepEqual(terminal.payload, {
    turnId: reservedId,
    stopReason: 'background_agent_continuation_timeout',
    syntheticTimeout: true,
  });
  assert.deepEqual(h.query().calls, ['interrupt'], 'interrupted, not closed: t2 is queued in the same Query');
  // Claude Code ends the interrupted follow-up, then starts the prompt that stayed queued.
  h.query().push(
    errorResult(['[ede_diagnostic] aborted']),
    promptEcho(correlation),
    assistantText('answer of t2'),
    successResult(),
  );
  assert.deepEqual((await h.terminalOf('t2')).payload, {
    turnId: 't2',
    providerTurnId: correlation,
    stopReason: 'end_turn',
  });
  assert.deepEqual(assistantTextOf(h, 't2'), ['answer of t2']);
  assert.equal(terminalsOf(h, reservedId).length, 1);
});

async function cancelT2(h: Harness) {
  return withDiagnosticSinkForTest(() => h.runtime.cancel(cancelPayload('t2'), { requestId: 'cancel-t2' }));
}

test('a cancel of the prompt queued behind a running follow-up withdraws it; the follow-up runs on to idle', async (t) => {
  const h = harness();
  t.after(() => h.runtime.close());
  const syntheticId = await withSyntheticContinuation(h);
  const correlation = await execT2(h);
  h.query().answerWithdrawals(true);
  assert.deepEqual(await cancelT2(h), canceledBeforeAcceptance('t2', 'dispatched', 'query goes on'));
  assert.deepEqual(
    terminalsOf(h, 't2').map((event) => event.type),
    ['turn_canceled'],
  );
  assert.deepEqual(
    h.query().calls,
    [`cancelAsyncMessage:${correlation}`],
    'the Query is neither interrupted nor closed',
  );
  assert.deepEqual(terminalsOf(h, syntheticId), [], 'the follow-up runs on');

  h.query().push(assistantText(FOLLOW_UP_REST), taskNotificationResult(), sessionIdle());
  await h.terminalOf(syntheticId);
  assert.deepEqual(
    {
      text: assistantTextOf(h, syntheticId),
      terminals: terminalsOf(h, syntheticId).map((event) => event.payload),
      t2: terminalsOf(h, 't2').length,
    },
    {
      text: [FOLLOW_UP, FOLLOW_UP_REST],
      terminals: [{ turnId: syntheticId, stopReason: 'background_agent_idle' }],
      t2: 1,
    },
  );
});

test('a cancel whose withdrawal Claude Code refuses retires the Query: the follow-up keeps what it published, both turns end once', async (t) => {
  const h = harness();
  t.after(() => h.runtime.close());
  const syntheticId = await withSyntheticContinuation(h);
  const correlation = await execT2(h);
  h.query().answerWithdrawals(false);
  assert.deepEqual(await cancelT2(h), canceledBeforeAcceptance('t2', 'dispatched', 'query retired'));
  assert.deepEqual(h.query().calls, [`cancelAsyncMessage:${correlation}`, 'interrupt', 'close']);
  assert.deepEqual(
    { synthetic: terminalsOf(h, syntheticId).map((e) => e.type), t2: terminalsOf(h, 't2').map((e) => e.type) },
    { synthetic: ['turn_canceled'], t2: ['turn_canceled'] },
  );
  assert.deepEqual(assistantTextOf(h, syntheticId), [FOLLOW_UP], 'what the follow-up published stays published');
});

test('a prompt that starts while its withdrawal is asked: the follow-up ends first, the prompt publishes nothing', async (t) => {
  const h = harness();
  t.after(() => h.runtime.close());
  const syntheticId = await withSyntheticContinuation(h);
  const correlation = await execT2(h);
  const query = h.query();
  query.cancelAsyncMessage = async () => {
    query.push(
      assistantText(FOLLOW_UP_REST),
      taskNotificationResult(),
      promptEcho(correlation),
      assistantText('answer of t2'),
    );
    await h.waitFor((event) => TERMINALS.has(event.type) && event.payload.turnId === syntheticId, 'the follow-up end');
    await new Promise((resolve) => setTimeout(resolve, 20));
    return false;
  };
  assert.deepEqual(await cancelT2(h), canceledBeforeAcceptance('t2', 'dispatched', 'query retired'));
  assert.deepEqual(
    terminalsOf(h, syntheticId).map((event) => event.payload),
    [{ turnId: syntheticId, stopReason: 'background_agent' }],
    'the follow-up ended when the prompt started, with all of its output',
  );
  assert.deepEqual(assistantTextOf(h, syntheticId), [FOLLOW_UP, FOLLOW_UP_REST]);
  assert.deepEqual(
    h.events.filter((event) => event.payload.turnId === 't2').map((event) => event.type),
    ['turn_canceled'],
    "the canceled prompt's echo and answer are published nowhere",
  );
  assert.ok(
    !h.events.some((event) => event.type === 'assistant_completed' && event.payload.content === 'answer of t2'),
  );
  assert.deepEqual(query.calls, ['interrupt', 'close']);
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

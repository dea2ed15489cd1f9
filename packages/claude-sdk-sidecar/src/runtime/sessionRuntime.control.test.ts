import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { CanUseTool } from '@anthropic-ai/claude-agent-sdk';
import { type CancelPayload, type CancelResult, parseRequestPayload, type StopTaskPayload } from '@outrigger/protocol';
import { CANCEL_DIAGNOSTIC_PREFIX } from '../diagnostics/cancelDiagnostics.ts';
import { withDiagnosticSinkForTest } from '../diagnostics/diagnosticLine.ts';
import type { FakeClaudeQuery } from '../testing/fakeClaudeQuery.ts';
import {
  assistantText,
  backgroundLaunchResult,
  backgroundTasksChanged,
  errorResult,
  promptEcho,
  streamEvent,
  successResult,
  taskNotificationSystem,
  taskStarted,
  textDelta,
  toolUse,
} from '../testing/sdkMessageBuilders.ts';
import {
  canceledBeforeAcceptance,
  canceledInProvider,
  execPayload,
  type Harness,
  harness,
  notCanceled,
  startedWithTurn,
  TERMINALS,
} from '../testing/sessionRuntimeHarness.ts';
import { CANCEL_STAGES_AFTER_INTERRUPT_ACK } from '../testing/shutdownStages.ts';
import type { ClaudeQuery } from './claudeQuery.ts';

/**
 * Reference §3.2 (guide), §3.4 (cancel) and §2.1 (stop_task) on a FakeClaudeQuery: every disposition row,
 * the shutdown boundary before terminal events, the drain-timeout consequence, guidance and stop_task.
 */

/** Budgets no healthy fake Query comes near; a test that wants a timeout sets its own. */
function cancelOf(turnId: string, budgets = { interruptTimeoutMs: 5_000, drainTimeoutMs: 5_000 }): CancelPayload {
  return { agentSessionId: 's1', turnId, ...budgets };
}

function cancel(h: Harness, turnId: string, budgets?: { interruptTimeoutMs: number; drainTimeoutMs: number }) {
  return h.runtime.cancel(cancelOf(turnId, budgets), { requestId: `cancel-${turnId}` });
}

function terminalsOf(h: Harness, turnId: string): string[] {
  return h.events.filter((event) => TERMINALS.has(event.type) && event.payload.turnId === turnId).map((e) => e.type);
}

interface ControlCall {
  readonly call: 'interrupt' | 'close';
  /** How many events had been emitted when the call was made. */
  readonly eventCount: number;
}

/**
 * Records the Query's interrupt and close against the event log. The interrupt is acknowledged when
 * `acknowledged` settles (at once by default); with `closeEndsStream: false` close leaves the stream open.
 */
function traceControls(
  h: Harness,
  query: FakeClaudeQuery,
  options: { acknowledged?: Promise<void>; closeEndsStream?: boolean } = {},
): ControlCall[] {
  const trace: ControlCall[] = [];
  const close = query.close.bind(query);
  query.interrupt = async () => {
    trace.push({ call: 'interrupt', eventCount: h.events.length });
    await options.acknowledged;
  };
  query.close = () => {
    trace.push({ call: 'close', eventCount: h.events.length });
    if (options.closeEndsStream !== false) close();
  };
  return trace;
}

/** The order in which the Query's interrupt and close were called. */
function callsOf(trace: readonly ControlCall[]): ControlCall['call'][] {
  return trace.map((entry) => entry.call);
}

/** A started session whose turn t1 is bound to its echo and streaming. */
async function streamingTurn(h: Harness): Promise<string> {
  const correlation = await startedWithTurn(h);
  h.query().push(promptEcho(correlation), textDelta('partial'));
  await h.waitFor((event) => event.type === 'assistant_delta', 'the partial answer of t1');
  return correlation;
}

function cancelStages(lines: readonly string[]): string[] {
  return lines
    .filter((line) => line.startsWith(`${CANCEL_DIAGNOSTIC_PREFIX} `))
    .map((line) => String(JSON.parse(line.slice(CANCEL_DIAGNOSTIC_PREFIX.length + 1)).stage));
}

function sdkOptions(toolUseID: string, signal: AbortSignal): Parameters<CanUseTool>[2] {
  return { signal, toolUseID, requestId: `sdk-${toolUseID}`, suggestions: [] };
}

/** A stop_task payload as the server hands it over: parsed from the wire fields. */
function stopTaskOf(fields: Record<string, string>): StopTaskPayload {
  const parsed = parseRequestPayload('stop_task', { agentSessionId: 's1', ...fields });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

/**
 * Claude Code's stop_task as observed with the real binary (test/control/guideAndStopTask.test.ts): it
 * acknowledges any id, and stops a task only when given that task's id. Returns the ids it was asked to
 * stop and the tasks it really stopped.
 */
function stoppableTasks(query: ClaudeQuery, running: readonly string[]): { asked: string[]; stopped: string[] } {
  const asked: string[] = [];
  const stopped: string[] = [];
  query.stopTask = async (taskId) => {
    asked.push(taskId);
    if (running.includes(taskId)) stopped.push(taskId);
  };
  return { asked, stopped };
}

/** A bound turn t1 that launched a background Bash command (task bash-task-1, tool call toolu_bash). */
async function turnWithBackgroundBash(h: Harness): Promise<void> {
  const correlation = await startedWithTurn(h);
  h.query().push(
    promptEcho(correlation),
    toolUse('toolu_bash', 'Bash', { command: 'python3 -c "..."', run_in_background: true }),
    backgroundTasksChanged(['bash-task-1', 'local_bash']),
    taskStarted('bash-task-1', 'toolu_bash', 'local_bash'),
    backgroundLaunchResult('toolu_bash', 'bash-task-1'),
  );
  await h.waitFor(
    (event) => event.type === 'tool_updated' && event.payload.toolCallId === 'toolu_bash',
    'the background launch of toolu_bash',
  );
}

// --- cancel: the disposition table -------------------------------------------------------------------------

test('absent: nothing to cancel, with or without a turn id, and after close', async () => {
  const h = harness();
  await h.runtime.start();
  await withDiagnosticSinkForTest(async () => {
    assert.deepEqual(await cancel(h, ''), notCanceled('absent', ''));
    assert.deepEqual(await cancel(h, 'never-ran'), notCanceled('absent', 'never-ran'));
    await h.runtime.close();
    assert.deepEqual(await cancel(h, 'after-close'), notCanceled('absent', 'after-close'));
  });
  assert.deepEqual(h.query().calls, ['close'], 'only close touched the Query');
});

test('mismatch: another turn runs; it is left alone and completes', async () => {
  const h = harness();
  const correlation = await streamingTurn(h);
  const result = await withDiagnosticSinkForTest(() => cancel(h, 'other'));
  assert.deepEqual(result, notCanceled('mismatch', 'other'));
  assert.deepEqual(h.query().calls, [], 'the Query is not touched');
  h.query().push(assistantText('answer'), successResult());
  const terminal = await h.terminalOf('t1');
  assert.deepEqual(terminal.payload, { turnId: 't1', providerTurnId: correlation, stopReason: 'end_turn' });
  assert.deepEqual(terminalsOf(h, 'other'), []);
  await h.runtime.close();
});

test('pre_accept (pending_goal): a deferred Goal command is withdrawn locally', async () => {
  const h = harness();
  await h.runtime.start();
  await h.runtime.exec(execPayload('goal-1', { goalOperationId: 'op-1', goalRevision: 1, goalAction: 'set' }));
  const result = await withDiagnosticSinkForTest(() => cancel(h, 'goal-1'));
  assert.deepEqual(result, canceledBeforeAcceptance('goal-1', 'pending_goal', 'query goes on'));
  const withdrawn = h.eventsOf('goal_command_canceled');
  assert.deepEqual(
    withdrawn.map((event) => event.payload),
    [{ turnId: 'goal-1', operationId: 'op-1', revision: 1, repairEpoch: 0, action: 'set', reason: 'cancel_requested' }],
  );
  await delay(20);
  assert.equal(h.query().prompts.length, 0, 'the withdrawn Goal command never reaches Claude Code');
  assert.deepEqual(h.query().calls, []);
  assert.deepEqual(terminalsOf(h, 'goal-1'), [], 'a withdrawn Goal command is not a canceled turn');
  await h.runtime.close();
});

test('pre_accept (queued): a turn never handed to Claude Code ends locally with one turn_canceled', async () => {
  const h = harness();
  await h.runtime.start();
  await h.runtime.exec(execPayload('t1'));
  const result = await withDiagnosticSinkForTest(() => cancel(h, 't1'));
  assert.deepEqual(result, canceledBeforeAcceptance('t1', 'queued', 'query goes on'));
  assert.deepEqual(terminalsOf(h, 't1'), ['turn_canceled']);
  await delay(20);
  assert.equal(h.query().prompts.length, 0, 'the canceled prompt is never sent');
  assert.deepEqual(h.query().calls, [], 'the Query is not touched');
  await h.runtime.close();
});

test('pre_accept (dispatched): a prompt without provider identity is canceled after the Query shutdown', async () => {
  const h = harness();
  await startedWithTurn(h);
  const result = await withDiagnosticSinkForTest(() => cancel(h, 't1'));
  assert.deepEqual(result, canceledBeforeAcceptance('t1', 'dispatched', 'query retired'));
  assert.deepEqual(h.query().calls, ['interrupt', 'close'], 'a dispatched prompt is stopped in Claude Code');
  const terminal = await h.terminalOf('t1');
  assert.deepEqual(terminal, { type: 'turn_canceled', payload: { turnId: 't1' } });
  await h.runtime.close();
});

test('provider_active: a bound streaming turn is canceled with its provider turn id', async () => {
  const h = harness();
  const correlation = await streamingTurn(h);
  const result = await withDiagnosticSinkForTest(() => cancel(h, 't1'));
  assert.deepEqual(result, canceledInProvider('t1', correlation, 'streaming'));
  assert.deepEqual(await h.terminalOf('t1'), {
    type: 'turn_canceled',
    payload: { turnId: 't1', providerTurnId: correlation },
  });
  await h.runtime.close();
});

test('an empty turn id cancels the active turn', async () => {
  const h = harness();
  const correlation = await streamingTurn(h);
  const result = await withDiagnosticSinkForTest(() => cancel(h, ''));
  assert.deepEqual(result, canceledInProvider('t1', correlation, 'streaming'));
  await h.runtime.close();
});

/*
 * provider_state_lost (§3.4 steps 6 and 11) needs an unsettled turn with acceptance evidence whose Query
 * generation no longer owns it. No request sequence leads there: every path that drops a generation
 * (child death, result watchdog, auth rejection, connection loss, close) settles its turns, idle
 * retirement needs no unsettled turn, and a cancel whose drain times out leaves its turns `canceling`
 * (a later cancel is `unresolved`). The state is therefore built by moving the bound turn off the live
 * generation, which is what "the generation was detached without settling it" means to the runtime.
 */
test('provider_state_lost: a bound, unsettled turn whose Query generation is gone (state built directly)', async () => {
  const h = harness();
  const correlation = await streamingTurn(h);
  const turn = h.runtime.turns.find('t1');
  assert.ok(turn, 't1 is unsettled');
  turn.generationId = -1;
  const expected: CancelResult = {
    canceled: false,
    disposition: 'provider_state_lost',
    turnId: 't1',
    providerTurnId: correlation,
    dispatchPhase: 'streaming',
    queryRetired: false,
  };
  await withDiagnosticSinkForTest(async () => {
    assert.deepEqual(await cancel(h, 't1'), expected);
    assert.deepEqual(await cancel(h, 't1'), expected, 'asked again: still lost, never downgraded to absent');
  });
  assert.deepEqual(h.query().calls, [], 'the live Query is not touched for a turn it does not own');
  assert.deepEqual(terminalsOf(h, 't1'), [], 'provider state lost publishes no terminal');
  assert.equal(h.runtime.turns.find('t1')?.canceling, false, 'the cancellation mark is released');
  await h.runtime.close();
});

test('pre_accept with its phase: a dispatched turn without identity whose generation is gone ends with one turn_canceled (state built directly)', async () => {
  const h = harness();
  await startedWithTurn(h);
  const turn = h.runtime.turns.find('t1');
  assert.ok(turn, 't1 is unsettled');
  turn.generationId = -1;
  const result = await withDiagnosticSinkForTest(() => cancel(h, 't1'));
  assert.deepEqual(result, canceledBeforeAcceptance('t1', 'dispatched', 'query goes on'));
  assert.deepEqual(terminalsOf(h, 't1'), ['turn_canceled'], 'the answer and the one terminal agree');
  assert.deepEqual(h.query().calls, []);
  await h.runtime.close();
});

test('cancel of a settled root turn while its synthetic continuation runs stops the continuation; a stale id is absent', async () => {
  const h = harness();
  const correlation = await startedWithTurn(h);
  h.query().push(promptEcho(correlation), assistantText('answer'), successResult());
  await h.terminalOf('t1');
  h.query().push(assistantText('background follow-up'));
  const started = await h.waitFor(
    (event) => event.type === 'turn_started' && event.payload.synthetic === true,
    'the synthetic continuation turn',
  );
  const continuationId = String(started.payload.turnId);
  const trace = traceControls(h, h.query());
  const result = await withDiagnosticSinkForTest(() => cancel(h, 't1'));
  assert.deepEqual(result, canceledInProvider('t1', correlation, 'terminal'));
  assert.deepEqual(callsOf(trace), ['interrupt', 'close']);
  assert.deepEqual(terminalsOf(h, 't1'), ['turn_completed'], 'the root keeps its one terminal');
  assert.deepEqual(terminalsOf(h, continuationId), ['turn_canceled'], 'the continuation ends once, canceled');
  const again = await withDiagnosticSinkForTest(() => cancel(h, 't1'));
  assert.equal(again.disposition, 'absent', 'a stale cancel of t1 finds nothing to stop');
  assert.equal(again.canceled, false);
  await h.runtime.close();
});

// --- cancel: shutdown boundary, fence, one terminal ----------------------------------------------------------

test('turn_canceled comes after the acknowledged interrupt and the close, and before the answer', async () => {
  const h = harness();
  const correlation = await streamingTurn(h);
  const acknowledgement = Promise.withResolvers<void>();
  const trace = traceControls(h, h.query(), { acknowledged: acknowledgement.promise });
  await withDiagnosticSinkForTest(async (lines) => {
    let eventsWhenAnswered = -1;
    const answer = cancel(h, 't1').then((result) => {
      eventsWhenAnswered = h.events.length;
      return result;
    });
    await h.poll(() => (trace.length > 0 ? true : undefined), 'the interrupt');
    // Fenced at once: what Claude Code still streams while the interrupt is pending is never routed.
    h.query().push(textDelta(' late'), assistantText('partial late'), successResult());
    await delay(30);
    assert.deepEqual(callsOf(trace), ['interrupt'], 'the transport is closed only after the interrupt answered');
    assert.deepEqual(terminalsOf(h, 't1'), [], 'no terminal before the shutdown boundary');
    acknowledgement.resolve();
    const result = await answer;

    assert.equal(result.disposition, 'provider_active');
    assert.deepEqual(callsOf(trace), ['interrupt', 'close']);
    const canceledAt = h.indexOf((event) => event.type === 'turn_canceled' && event.payload.turnId === 't1');
    const closedAt = trace[1]?.eventCount ?? Number.POSITIVE_INFINITY;
    assert.ok(canceledAt >= closedAt, 'turn_canceled is emitted after close');
    assert.ok(canceledAt < eventsWhenAnswered, 'turn_canceled is emitted before the answer');
    assert.deepEqual(h.events[canceledAt]?.payload, { turnId: 't1', providerTurnId: correlation });
    assert.deepEqual(terminalsOf(h, 't1'), ['turn_canceled'], 'exactly one terminal, the late result settled nothing');
    assert.equal(h.eventsOf('assistant_delta').length, 1, 'no output routed after the fence');
    assert.deepEqual(cancelStages(lines), CANCEL_STAGES_AFTER_INTERRUPT_ACK);
  });
  await h.runtime.close();
});

test('one interrupt retires the generation: the turn queued behind is canceled too, each exactly once', async () => {
  const h = harness();
  const correlation = await streamingTurn(h);
  await h.runtime.exec(execPayload('t2'));
  await h.query().waitForPrompts(2);
  const result = await withDiagnosticSinkForTest(() => cancel(h, 't1'));
  assert.equal(result.disposition, 'provider_active');
  assert.equal(result.providerTurnId, correlation);
  assert.deepEqual(terminalsOf(h, 't1'), ['turn_canceled']);
  assert.deepEqual(terminalsOf(h, 't2'), ['turn_canceled']);

  // The session goes on in a new Query; the canceled turns get nothing more.
  await h.runtime.exec(execPayload('t3'));
  const next = await h.nextQuery(1);
  const [prompt] = await next.waitForPrompts(1);
  assert.ok(prompt?.uuid);
  next.push(promptEcho(prompt.uuid), assistantText('fresh'), successResult());
  assert.equal((await h.terminalOf('t3')).type, 'turn_completed');
  assert.deepEqual(terminalsOf(h, 't1'), ['turn_canceled']);
  assert.deepEqual(terminalsOf(h, 't2'), ['turn_canceled']);
  const again = await withDiagnosticSinkForTest(() => cancel(h, 't1'));
  assert.equal(again.disposition, 'absent', 'a settled turn is no longer cancelable');
  await h.runtime.close();
});

test('a cancel already in flight for the turn answers an error', async () => {
  const h = harness();
  await streamingTurn(h);
  const acknowledgement = Promise.withResolvers<void>();
  const trace = traceControls(h, h.query(), { acknowledged: acknowledgement.promise });
  await withDiagnosticSinkForTest(async () => {
    const first = cancel(h, 't1');
    await h.poll(() => (trace.length > 0 ? true : undefined), 'the first interrupt');
    await assert.rejects(cancel(h, 't1'), {
      message: 'Claude SDK exact cancellation remains unresolved for turn t1',
    });
    acknowledgement.resolve();
    assert.equal((await first).disposition, 'provider_active');
  });
  assert.deepEqual(terminalsOf(h, 't1'), ['turn_canceled']);
  await h.runtime.close();
});

test('a guide that starts while a cancel of its turn waits behind it gives way without interrupting', async () => {
  const h = harness();
  await streamingTurn(h);
  h.runtime.cancelRequested(cancelOf(''));
  await assert.rejects(h.runtime.guide({ agentSessionId: 's1', prompt: 'steer', content: [] }), {
    message: 'Claude SDK guidance was superseded by a cancel of its turn',
  });
  assert.deepEqual(h.query().calls, [], 'no interrupt was sent for the guidance');
  await cancel(h, '');
  h.query().push(successResult());
  // Once that cancel ran, a later guide (of a later turn) is not refused any more.
  await h.runtime.exec(execPayload('t2'));
  const next = await h.nextQuery(1);
  const [prompt] = await next.waitForPrompts(1);
  next.push(promptEcho(prompt?.uuid ?? ''), textDelta('second'));
  await h.waitFor((event) => event.type === 'assistant_delta' && event.payload.turnId === 't2', 'output of t2');
  await h.runtime.guide({ agentSessionId: 's1', prompt: 'steer', content: [] });
  assert.equal(h.eventsOf('guidance_interrupted').length, 1);
  await h.runtime.close();
});

test('a Query that never ends and ignores interrupt and close does not hold the cancel: the fence ends the read', async () => {
  const h = harness();
  await streamingTurn(h);
  const never = new Promise<void>(() => undefined);
  const trace = traceControls(h, h.query(), { acknowledged: never, closeEndsStream: false });
  await withDiagnosticSinkForTest(async (lines) => {
    const result = await cancel(h, 't1', { interruptTimeoutMs: 20, drainTimeoutMs: 2_000 });
    assert.equal(result.disposition, 'provider_active');
    assert.deepEqual(callsOf(trace), ['interrupt', 'close']);
    const stages = cancelStages(lines);
    assert.ok(stages.includes('interrupt_timed_out'), `stages: ${stages.join(', ')}`);
    assert.ok(stages.includes('consumption_settled'), `stages: ${stages.join(', ')}`);
  });
  assert.deepEqual(terminalsOf(h, 't1'), ['turn_canceled']);
  await h.runtime.close();
});

/*
 * The drain budget runs out only when the consumer itself is stuck inside a message: the pending read
 * of the stream is aborted by the fence (test above). The real way to get stuck is the identity barrier's
 * transcript read, which does not honour its abort signal; here it never returns.
 */
test('a drain timeout answers an error at stage consumption and leaves the turn unsettled, without a terminal', async () => {
  let transcriptReads = 0;
  const h = harness({
    resolveTurnIdentity: () => {
      transcriptReads += 1;
      return new Promise(() => undefined);
    },
  });
  await startedWithTurn(h);
  const never = new Promise<void>(() => undefined);
  const trace = traceControls(h, h.query(), { acknowledged: never, closeEndsStream: false });

  await withDiagnosticSinkForTest(async (lines) => {
    h.query().push(textDelta('held behind the barrier'));
    await h.poll(() => (transcriptReads > 0 ? true : undefined), 'the transcript read of the barrier');
    await assert.rejects(cancel(h, 't1', { interruptTimeoutMs: 20, drainTimeoutMs: 30 }), (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.equal(error.message, 'Claude SDK Query consumption timed out after 30ms');
      assert.equal((error as { stage?: unknown }).stage, 'consumption');
      return true;
    });
    assert.deepEqual(callsOf(trace), ['interrupt', 'close']);
    assert.deepEqual(cancelStages(lines).slice(-2), ['consumption_timed_out', 'cancel_failed']);
    assert.deepEqual(terminalsOf(h, 't1'), [], 'fail-closed: no terminal event');
    const turn = h.runtime.turns.find('t1');
    assert.ok(turn, 'the turn stays unsettled');
    assert.equal(turn.canceling, true, 'and stays marked canceling');

    // §3.4 step 8: the turn is still being canceled, so a later cancel cannot resolve it either.
    await assert.rejects(cancel(h, 't1'), { message: 'Claude SDK exact cancellation remains unresolved for turn t1' });
  });
  assert.equal(h.eventsOf('assistant_delta').length, 0, 'nothing of the unbound turn was published');
  await h.runtime.close();
  assert.deepEqual(terminalsOf(h, 't1'), ['turn_failed'], 'closing the session ends it, once');
});

test('pending interactions are superseded by the cancel, and a late answer does not resolve them', async () => {
  const h = harness();
  const correlation = await streamingTurn(h);
  const canUseTool = h.query().options.canUseTool;
  assert.ok(canUseTool, 'the Query has a canUseTool callback');
  const decision = canUseTool(
    'Bash',
    { command: 'touch file' },
    sdkOptions('toolu_approve', new AbortController().signal),
  );
  const approval = await h.waitFor((event) => event.type === 'approval_requested', 'the approval request');
  const requestId = String(approval.payload.requestId);

  const result = await withDiagnosticSinkForTest(() => cancel(h, 't1'));
  assert.deepEqual(result, canceledInProvider('t1', correlation, 'waiting_approval'));
  assert.deepEqual(await decision, { behavior: 'deny', message: 'Tool use aborted' });
  const allow = { agentSessionId: 's1', turnId: 't1', requestId, action: 'allow', optionId: 'allow', payload: {} };
  assert.deepEqual(await h.runtime.interactiveDisposition(allow), { disposition: 'superseded', replayed: true });
  assert.deepEqual(await h.runtime.submitInteractive(allow), { disposition: 'superseded', replayed: true });
  assert.deepEqual(h.eventsOf('approval_resolved'), [], 'a superseded approval is never resolved');
  assert.deepEqual(terminalsOf(h, 't1'), ['turn_canceled']);
  await h.runtime.close();
});

// --- guide -------------------------------------------------------------------------------------------------

test('guide: interrupt, then guidance_interrupted, then the guided prompt in the same Query; the turn completes once', async () => {
  const h = harness();
  const correlation = await streamingTurn(h);
  const acknowledgement = Promise.withResolvers<void>();
  const trace = traceControls(h, h.query(), { acknowledged: acknowledgement.promise });
  const guided = h.runtime.guide({ agentSessionId: 's1', prompt: 'focus on the tests', content: [] });
  await h.poll(() => (trace.length > 0 ? true : undefined), 'the guidance interrupt');
  await delay(20);
  assert.deepEqual(h.eventsOf('guidance_interrupted'), [], 'nothing before the interrupt is acknowledged');
  assert.equal(h.query().prompts.length, 1, 'the guided prompt waits for the acknowledgement');
  acknowledgement.resolve();
  await guided;

  const interruptedAt = h.indexOf((event) => event.type === 'guidance_interrupted');
  assert.deepEqual(h.events[interruptedAt]?.payload, { turnId: 't1' });
  const prompts = await h.query().waitForPrompts(2);
  const guidance = prompts[1];
  assert.ok(guidance, 'the guided prompt was pushed');
  assert.deepEqual(guidance.message.content, [{ type: 'text', text: 'focus on the tests' }]);
  assert.notEqual(guidance.uuid, correlation, 'guidance is a new prompt, not the turn prompt again');
  assert.equal(h.queries.length, 1, 'the same Query carries the guidance');
  assert.deepEqual(callsOf(trace), ['interrupt'], 'guidance never closes the Query');

  // What Claude Code sends after an interrupt (claude-code-offline.md §3), then the guided run.
  h.query().push(
    assistantText('partial', { aborted: true }),
    errorResult(['[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=null'], {
      terminal_reason: 'aborted_streaming',
    }),
  );
  await delay(30);
  assert.deepEqual(terminalsOf(h, 't1'), [], 'the interrupted result is swallowed');
  assert.ok(guidance.uuid);
  h.query().push(promptEcho(guidance.uuid, 'focus on the tests'), textDelta('guided'), assistantText('guided answer'));
  h.query().push(successResult());
  const terminal = await h.terminalOf('t1');
  assert.deepEqual(terminal.payload, { turnId: 't1', providerTurnId: correlation, stopReason: 'end_turn' });
  assert.deepEqual(terminalsOf(h, 't1'), ['turn_completed'], 'exactly one terminal');
  assert.ok(
    h.events.some(
      (event, index) => index > interruptedAt && event.type === 'assistant_delta' && event.payload.turnId === 't1',
    ),
    'the guided output belongs to the same turn',
  );
  assert.deepEqual(
    h.eventsOf('provider_turn_identity_resolved').map((event) => event.payload.providerTurnId),
    [correlation],
    'the guided prompt does not rebind the turn',
  );
  assert.deepEqual(h.eventsOf('turn_started'), [], 'no synthetic turn is opened for the guided run');
  await h.runtime.close();
});

test('guide without an active turn is refused and touches nothing', async () => {
  const h = harness();
  await h.runtime.start();
  await assert.rejects(h.runtime.guide({ agentSessionId: 's1', prompt: 'steer', content: [] }), {
    message: 'Claude SDK guidance requires an active turn',
  });
  assert.deepEqual(h.query().calls, []);
  assert.equal(h.query().prompts.length, 0);
  await h.runtime.close();
});

test('guide whose interrupt fails pushes nothing, and the next interrupted result is not swallowed', async () => {
  const h = harness();
  const correlation = await streamingTurn(h);
  h.query().interruptBehavior = 'reject';
  await assert.rejects(h.runtime.guide({ agentSessionId: 's1', prompt: 'steer', content: [] }), {
    message: 'interrupt failed',
  });
  assert.deepEqual(h.eventsOf('guidance_interrupted'), []);
  await delay(20);
  assert.equal(h.query().prompts.length, 1, 'no guided prompt');
  h.query().push(errorResult(['model overloaded']));
  const terminal = await h.terminalOf('t1');
  assert.deepEqual(terminal, {
    type: 'turn_failed',
    payload: { turnId: 't1', providerTurnId: correlation, error: 'model overloaded' },
  });
  await h.runtime.close();
});

test('guide whose interrupt is not acknowledged within its budget answers an error; the turn goes on', async () => {
  const h = harness({ timers: { interruptTimeoutMs: 40 } });
  const correlation = await streamingTurn(h);
  h.query().interruptBehavior = 'hang';
  await assert.rejects(h.runtime.guide({ agentSessionId: 's1', prompt: 'steer', content: [] }), {
    message: 'Claude SDK guidance interrupt was not acknowledged within 40ms',
  });
  await assert.rejects(
    h.runtime.guide({ agentSessionId: 's1', prompt: 'steer', content: [], interruptTimeoutMs: 15 }),
    {
      message: 'Claude SDK guidance interrupt was not acknowledged within 15ms',
    },
  );
  assert.deepEqual(h.eventsOf('guidance_interrupted'), []);
  assert.equal(h.query().prompts.length, 1, 'no guided prompt');
  assert.deepEqual(
    h.query().calls.filter((call) => call === 'close'),
    [],
    'the Query is left running',
  );
  h.query().push(textDelta(' and more'), assistantText('the answer went on'), successResult());
  const terminal = await h.terminalOf('t1');
  assert.deepEqual(terminal.payload, { turnId: 't1', providerTurnId: correlation, stopReason: 'end_turn' });
  await h.runtime.close();
});

test('a cancel arriving while a guide waits for its interrupt supersedes the guide at once', async () => {
  const h = harness({ timers: { interruptTimeoutMs: 60_000 } });
  const correlation = await streamingTurn(h);
  h.query().interruptBehavior = 'hang';
  const guided = h.runtime.guide({ agentSessionId: 's1', prompt: 'steer', content: [] });
  await h.poll(() => (h.query().calls.includes('interrupt') ? true : undefined), 'the guidance interrupt');
  h.runtime.cancelRequested(cancelOf('another-turn'));
  await delay(20);
  let settled = false;
  void guided
    .catch(() => undefined)
    .finally(() => {
      settled = true;
    });
  await delay(5);
  assert.equal(settled, false, 'a cancel of another turn does not touch the guide');
  h.runtime.cancelRequested(cancelOf('t1'));
  await assert.rejects(guided, { message: 'Claude SDK guidance was superseded by a cancel of its turn' });
  assert.deepEqual(h.eventsOf('guidance_interrupted'), []);
  const answer = await cancel(h, 't1', { interruptTimeoutMs: 20, drainTimeoutMs: 1_000 });
  assert.deepEqual(answer, canceledInProvider('t1', correlation, 'streaming'));
  assert.deepEqual(terminalsOf(h, 't1'), ['turn_canceled']);
  await h.runtime.close();
});

// --- stream stall budget ----------------------------------------------------------------------------------

const STALL_TIMERS = { streamStallWarningMs: 30, streamStallBudgetMs: 100, interruptTimeoutMs: 60 };

/** A turn whose API stream opened, streamed a first chunk and went silent. */
async function stalledTurn(h: Harness): Promise<string> {
  const correlation = await startedWithTurn(h);
  h.query().push(promptEcho(correlation), streamEvent({ type: 'message_start', message: { id: 'msg_stall' } }));
  h.query().push(textDelta('partial '));
  await h.waitFor((event) => event.type === 'assistant_delta', 'the first chunk');
  return correlation;
}

test('a silent open stream is reported every warning period and stopped at the budget with one stream_stalled failure', async () => {
  const h = harness({ timers: STALL_TIMERS });
  const correlation = await stalledTurn(h);
  await h.poll(() => (h.query().calls.includes('interrupt') ? true : undefined), 'the stall interrupt');
  const stalls = h.eventsOf('turn_stalled').map((event) => event.payload);
  assert.ok(stalls.length >= 2, `turn_stalled every 30 ms before the 100 ms budget: ${JSON.stringify(stalls)}`);
  assert.ok(stalls.every((payload) => payload.turnId === 't1' && typeof payload.silentMs === 'number'));
  assert.deepEqual(terminalsOf(h, 't1'), [], 'no terminal before the interrupted result');
  // What Claude Code sends for an interrupted stream (claude-code-offline.md §3).
  h.query().push(
    assistantText('partial ', { aborted: true }),
    errorResult(['[ede_diagnostic] result_type=user last_content_type=n/a stop_reason=null'], {
      terminal_reason: 'aborted_streaming',
    }),
  );
  const terminal = await h.terminalOf('t1');
  assert.equal(terminal.type, 'turn_failed');
  assert.equal(terminal.payload.code, 'stream_stalled');
  assert.equal(terminal.payload.providerTurnId, correlation);
  assert.match(String(terminal.payload.error), /^Claude API stream stalled: no data for \d+ms/);
  await delay(150);
  assert.deepEqual(terminalsOf(h, 't1'), ['turn_failed'], 'exactly one terminal');
  assert.deepEqual(h.query().calls, ['interrupt'], 'no retry, no close: the Query goes on');
  assert.equal(h.queries.length, 1);

  await h.runtime.exec(execPayload('t2'));
  const [, next] = await h.query().waitForPrompts(2);
  h.query().push(promptEcho(next?.uuid ?? ''), assistantText('fine now'), successResult());
  assert.equal((await h.terminalOf('t2')).type, 'turn_completed', 'the next prompt works in the same Query');
  await h.runtime.close();
});

test('a stall whose interrupt is not acknowledged takes the Query out of service; the next prompt gets a new one', async () => {
  const h = harness({ timers: STALL_TIMERS });
  await stalledTurn(h);
  h.query().interruptBehavior = 'hang';
  const terminal = await h.terminalOf('t1');
  assert.equal(terminal.type, 'turn_failed');
  assert.equal(terminal.payload.code, 'stream_stalled');
  await h.poll(() => (h.query().calls.includes('close') ? true : undefined), 'the stuck Query is closed');
  await h.runtime.exec(execPayload('t2'));
  const next = await h.nextQuery(1);
  const [prompt] = await next.waitForPrompts(1);
  next.push(promptEcho(prompt?.uuid ?? ''), assistantText('fresh'), successResult());
  assert.equal((await h.terminalOf('t2')).type, 'turn_completed');
  assert.equal(next.options.resume, h.query().options.sessionId ?? h.query().options.resume, 'it resumes the session');
  await h.runtime.close();
});

test('a running tool is no stall, and a stream that ends in time is never stopped', async () => {
  const h = harness({ timers: STALL_TIMERS });
  const correlation = await startedWithTurn(h);
  h.query().push(
    promptEcho(correlation),
    streamEvent({ type: 'message_start', message: { id: 'msg_tool' } }),
    toolUse('toolu_quiet', 'Bash', { command: 'python3 -c "import time; time.sleep(600)"' }),
    streamEvent({ type: 'message_delta', delta: { stop_reason: 'tool_use' } }),
    streamEvent({ type: 'message_stop' }),
  );
  await h.waitFor((event) => event.type === 'tool_started', 'the quiet tool');
  await delay(250);
  assert.deepEqual(h.eventsOf('turn_stalled'), [], 'a quiet tool for longer than the budget');
  assert.deepEqual(h.query().calls, []);
  h.query().push(successResult());
  assert.equal((await h.terminalOf('t1')).type, 'turn_completed');
  await h.runtime.close();
});

// --- stop_task ---------------------------------------------------------------------------------------------

test('stop_task by task id stops a running background process', async () => {
  const h = harness();
  await turnWithBackgroundBash(h);
  const claude = stoppableTasks(h.query(), ['bash-task-1']);
  assert.deepEqual(await h.runtime.stopTask(stopTaskOf({ taskId: 'bash-task-1' })), {
    stopped: true,
  });
  assert.deepEqual(claude.stopped, ['bash-task-1']);
  await h.runtime.close();
});

test('stop_task by toolCallId stops the background process that tool call launched', async () => {
  const h = harness();
  await turnWithBackgroundBash(h);
  const claude = stoppableTasks(h.query(), ['bash-task-1']);
  const result = await h.runtime.stopTask(stopTaskOf({ toolCallId: 'toolu_bash' }));
  assert.deepEqual(
    claude.stopped,
    ['bash-task-1'],
    `toolu_bash launched task bash-task-1, but Claude Code was asked to stop ${JSON.stringify(claude.asked)}`,
  );
  assert.deepEqual(result, { stopped: true });
  await h.runtime.close();
});

test('stop_task by the legacy parentToolUseId stops the delegated task of that Agent call', async () => {
  const h = harness();
  const correlation = await startedWithTurn(h);
  h.query().push(
    promptEcho(correlation),
    toolUse('toolu_agent', 'Agent', { description: 'explore', prompt: 'look around', run_in_background: true }),
    taskStarted('agent-task-1', 'toolu_agent', 'local_agent'),
  );
  await h.waitFor((event) => event.type === 'task_started', 'the delegated task');
  const claude = stoppableTasks(h.query(), ['agent-task-1']);
  const result = await h.runtime.stopTask(stopTaskOf({ parentToolUseId: 'toolu_agent' }));
  assert.deepEqual(
    claude.stopped,
    ['agent-task-1'],
    `toolu_agent launched agent-task-1, but Claude Code was asked to stop ${JSON.stringify(claude.asked)}`,
  );
  assert.deepEqual(result, { stopped: true });
  await h.runtime.close();
});

test('stop_task answers stopped:false when no running task has that id, even though Claude Code acknowledges it', async () => {
  const h = harness();
  await turnWithBackgroundBash(h);
  const claude = stoppableTasks(h.query(), ['bash-task-1']);
  const stop = (taskId: string, toolCallId = '') => h.runtime.stopTask(stopTaskOf({ taskId, toolCallId }));
  assert.deepEqual(await stop('no-such-task'), { stopped: false }, 'an unknown task id');
  assert.deepEqual(await stop('', 'toolu_unknown'), { stopped: false }, 'an unknown tool call');
  assert.deepEqual(claude.stopped, [], 'nothing was stopped');
  await h.runtime.close();
});

test('stop_task of a background process that already ended answers stopped:false', async () => {
  const h = harness();
  await turnWithBackgroundBash(h);
  h.query().push(taskNotificationSystem('bash-task-1', 'completed'), backgroundTasksChanged());
  await h.waitFor(
    (event) => event.type === 'background_tasks_changed' && event.payload.backgroundTasksRunningCount === 0,
    'the background process to end',
  );
  const claude = stoppableTasks(h.query(), []);
  assert.deepEqual(await h.runtime.stopTask(stopTaskOf({ taskId: 'bash-task-1' })), { stopped: false });
  assert.deepEqual(await h.runtime.stopTask(stopTaskOf({ toolCallId: 'toolu_bash' })), { stopped: false });
  assert.deepEqual(claude.stopped, []);
  await h.runtime.close();
});

test('stop_task answers stopped:false for a stop Claude Code refuses, no id, and no Query', async () => {
  const h = harness();
  await turnWithBackgroundBash(h);
  const stop = (taskId: string) => h.runtime.stopTask(stopTaskOf({ taskId }));
  assert.deepEqual(await stop(''), { stopped: false }, 'no id');
  const query: ClaudeQuery = h.query();
  query.stopTask = async () => {
    throw new Error('StopTask: task is not running');
  };
  assert.deepEqual(await stop('bash-task-1'), { stopped: false }, 'a stop Claude Code refuses is not a stop');
  await h.runtime.close();
  assert.deepEqual(await stop('bash-task-1'), { stopped: false }, 'a closed session has no Query to ask');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withDiagnosticSinkForTest } from '../diagnostics/diagnosticLine.ts';
import {
  assistantText,
  promptEcho,
  successResult,
  taskNotificationUser,
  taskUpdated,
  textDelta,
  toolResultUser,
  toolUse,
} from '../testing/sdkMessageBuilders.ts';
import {
  cancelPayload,
  execPayload,
  type Harness,
  harness,
  startedWithTurn,
} from '../testing/sessionRuntimeHarness.ts';

const TOOL_END = new Set(['tool_completed', 'tool_failed']);

/** A turn whose Bash call is running: started, no result yet. */
async function turnRunningBash(h: Harness, toolUseId = 'toolu_bash'): Promise<void> {
  const correlation = await startedWithTurn(h);
  h.query().push(promptEcho(correlation), toolUse(toolUseId, 'Bash', { command: 'sleep 30' }));
  await h.waitFor((event) => event.type === 'tool_started', 'the Bash call to start');
}

function toolEnds(h: Harness, toolUseId: string) {
  return h.events.filter((event) => TOOL_END.has(event.type) && event.payload.toolCallId === toolUseId);
}

test('a cancel fails the running tool call after the shutdown and before turn_canceled', async () => {
  const h = harness();
  await turnRunningBash(h);
  const result = await withDiagnosticSinkForTest(() => h.runtime.cancel(cancelPayload('t1'), { requestId: 'r1' }));
  assert.equal(result.disposition, 'provider_active');

  const ends = toolEnds(h, 'toolu_bash');
  assert.deepEqual(
    ends.map((event) => [event.type, event.payload.error]),
    [['tool_failed', 'Tool use aborted']],
  );
  const toolEnd = h.events.indexOf(ends[0] ?? { type: '', payload: {} });
  const canceled = h.indexOf((event) => event.type === 'turn_canceled');
  assert.ok(toolEnd >= 0 && toolEnd < canceled, 'the tool call ends before the turn');
  assert.deepEqual(h.query().calls, ['interrupt', 'close'], 'the call is closed only after the shutdown boundary');
  await h.runtime.close();
});

test('a dying child fails the running tool call with the turn error', async () => {
  const h = harness();
  await turnRunningBash(h);
  h.query().fail(new Error('Claude Code process exited with code 137'));
  const terminal = await h.terminalOf('t1');
  const ends = toolEnds(h, 'toolu_bash');
  assert.deepEqual(
    ends.map((event) => [event.type, event.payload.error]),
    [['tool_failed', terminal.payload.error]],
  );
  assert.ok(h.events.indexOf(ends[0] ?? { type: '', payload: {} }) < h.events.indexOf(terminal));
  await h.runtime.close();
});

test('close fails the running tool call; a tool call that completed is left alone', async () => {
  const h = harness();
  await turnRunningBash(h, 'toolu_done');
  h.query().push(toolResultUser('result-uuid', 'toolu_done'), toolUse('toolu_open', 'Bash', { command: 'sleep 30' }));
  await h.poll(() => (h.eventsOf('tool_started').length === 2 ? true : undefined), 'the second Bash call to start');
  await h.runtime.close();
  assert.deepEqual(
    toolEnds(h, 'toolu_done').map((event) => event.type),
    ['tool_completed'],
  );
  assert.deepEqual(
    toolEnds(h, 'toolu_open').map((event) => [event.type, event.payload.error]),
    [['tool_failed', 'Claude SDK session closed']],
  );
});

test('the Query after a cancel drops the canceled run tail until the new prompt runs', async () => {
  const h = harness();
  const correlation = await startedWithTurn(h);
  h.query().push(promptEcho(correlation), textDelta('partial'));
  await h.waitFor((event) => event.type === 'assistant_delta', 'the partial answer');
  await withDiagnosticSinkForTest(() => h.runtime.cancel(cancelPayload('t1'), { requestId: 'r1' }));
  const observedBefore = h.eventsOf('sdk_lifecycle_observed').length;

  await h.runtime.exec(execPayload('t2'));
  const next = await h.nextQuery(1);
  const [prompt] = await next.waitForPrompts(1);
  assert.ok(prompt?.uuid);
  next.push(
    taskUpdated('bash-1'),
    taskNotificationUser('notification-uuid'),
    assistantText('the canceled background job finished'),
    successResult({ result: 'tail' }),
    promptEcho(prompt.uuid),
    assistantText('the new answer'),
    successResult(),
  );
  const terminal = await h.terminalOf('t2');
  assert.equal(terminal.type, 'turn_completed');
  assert.equal(terminal.payload.providerTurnId, prompt.uuid);
  const answers = h.eventsOf('assistant_completed').filter((event) => event.payload.turnId === 't2');
  assert.deepEqual(
    answers.map((event) => event.payload.content),
    ['the new answer'],
    'nothing of the tail reached the new turn',
  );
  const observed = h.eventsOf('sdk_lifecycle_observed').slice(observedBefore);
  assert.deepEqual(
    observed.map((event) => event.payload.sdkMessageSubtype),
    ['success'],
    'the tail was dropped before the router saw it; only the new result was observed',
  );
  assert.equal(h.eventsOf('turn_started').length, 0, 'no synthetic turn was opened for the tail');
  await h.runtime.close();
});

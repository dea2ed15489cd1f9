import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { AUTH_REFRESH_DEBUG_PREFIX } from '../diagnostics/authRefreshDebug.ts';
import { withDiagnosticSinkForTest } from '../diagnostics/diagnosticLine.ts';
import {
  apiRetry,
  assistantText,
  errorResult,
  promptEcho,
  queuedCommandEcho,
  sessionIdle,
  streamEvent,
  successResult,
  syntheticUser,
  taskNotificationUser,
  textDelta,
  toolResultUser,
} from '../testing/sdkMessageBuilders.ts';
import {
  absent,
  execPayload,
  harness,
  startedWithTurn,
  startPayload,
  TERMINALS,
} from '../testing/sessionRuntimeHarness.ts';

const OUTPUT_EVENTS = new Set(['assistant_delta', 'assistant_completed', 'tool_started', 'usage_updated']);

test('start emits session_started before answering and creates the first Query with sessionId', async () => {
  const h = harness();
  const result = await h.runtime.start();
  assert.equal(h.events[0]?.type, 'session_started');
  assert.equal(h.events[0]?.payload.providerSessionId, result.providerSessionId);
  const options = h.query().options;
  assert.equal(options.sessionId, result.providerSessionId);
  assert.equal(options.resume, undefined);
  assert.equal(options.includePartialMessages, true);
  assert.equal(options.includeHookEvents, true);
  assert.deepEqual(options.extraArgs, { 'replay-user-messages': null });
  await h.runtime.close();
});

test('a resume cursor replaces the provider session id and resumes it', async () => {
  const h = harness({
    payload: startPayload({
      providerSessionId: 'ignored',
      resumeCursor: { kind: 'claude-agent-sdk', version: 1, resume: 'resumed-id', turnCount: 3 },
    }),
  });
  const result = await h.runtime.start();
  assert.equal(result.providerSessionId, 'resumed-id');
  assert.equal(h.query().options.resume, 'resumed-id');
  assert.equal(h.query().options.sessionId, undefined);
  const cursor = h.events[0]?.payload.resumeCursor as Record<string, unknown>;
  assert.equal(cursor.turnCount, 3);
  await h.runtime.close();
});

test('the echoed root prompt binds the turn before any output, and terminals carry the bound id', async () => {
  const h = harness();
  const correlation = await startedWithTurn(h);
  h.query().push(promptEcho(correlation), textDelta('Hi'), assistantText('Hi'), successResult());
  const terminal = await h.terminalOf('t1');
  assert.equal(terminal.type, 'turn_completed');
  assert.equal(terminal.payload.providerTurnId, correlation);
  const identity = h.indexOf((event) => event.type === 'provider_turn_identity_resolved');
  const firstOutput = h.indexOf((event) => OUTPUT_EVENTS.has(event.type));
  assert.ok(identity >= 0 && identity < firstOutput, 'identity precedes the first output event');
  assert.deepEqual(h.events[identity]?.payload, { turnId: 't1', providerTurnId: correlation });
  await h.runtime.close();
});

test('a prompt folded into a running turn binds to the rewritten uuid of its queued_command', async () => {
  const h = harness();
  const correlation = await startedWithTurn(h);
  h.query().push(queuedCommandEcho('rewritten-uuid', correlation), assistantText('ok'), successResult());
  const terminal = await h.terminalOf('t1');
  assert.equal(terminal.payload.providerTurnId, 'rewritten-uuid');
  await h.runtime.close();
});

test('tool results, task notifications and synthetic messages never bind; the transcript barrier does', async () => {
  const lookups: string[] = [];
  const h = harness({
    resolveTurnIdentity: async (request) => {
      lookups.push(request.correlationId);
      return { providerTurnId: 'from-transcript', providerCheckpointMessageId: 'checkpoint-1' };
    },
  });
  const correlation = await startedWithTurn(h);
  h.query().push(
    toolResultUser('tool-result-uuid'),
    taskNotificationUser('notification-uuid'),
    syntheticUser('s-uuid'),
  );
  // The task notification promises a background follow-up, so the turn ends when the session goes idle.
  h.query().push(assistantText('answer'), successResult(), sessionIdle());
  const terminal = await h.terminalOf('t1');
  assert.deepEqual(lookups, [correlation]);
  const bindings = h.events.filter((event) => event.type === 'provider_turn_identity_resolved');
  assert.deepEqual(
    bindings.map((event) => event.payload.providerTurnId),
    ['from-transcript'],
  );
  assert.equal(terminal.payload.providerTurnId, 'from-transcript');
  const checkpoint = h.events.find((event) => event.type === 'provider_turn_checkpoint');
  assert.equal(checkpoint?.payload.providerCheckpointMessageId, 'checkpoint-1');
  await h.runtime.close();
});

test('the barrier retries an absent transcript and publishes identity before the held output', async () => {
  let calls = 0;
  const h = harness({
    resolveTurnIdentity: async (request, signal) => {
      calls += 1;
      if (calls < 3) return absent(request, signal);
      return { providerTurnId: 'late-uuid', providerCheckpointMessageId: 'late-uuid' };
    },
  });
  await withDiagnosticSinkForTest(async (lines) => {
    await startedWithTurn(h, 't1', { prompt: 'SECRET-PROMPT-CANARY' });
    h.query().push(textDelta('streamed'), assistantText('streamed'), successResult());
    await h.terminalOf('t1');
    assert.equal(calls, 3);
    const identity = h.indexOf((event) => event.type === 'provider_turn_identity_resolved');
    const firstDelta = h.indexOf((event) => event.type === 'assistant_delta');
    assert.ok(identity >= 0 && identity < firstDelta, 'identity precedes the held delta');
    assert.ok(lines.some((line) => line.includes('identity_recovery_resolved')));
    assert.ok(
      lines.every((line) => !line.includes('SECRET-PROMPT-CANARY')),
      'no prompt text in diagnostics',
    );
  });
  await h.runtime.close();
});

test('an identity that never reaches the transcript fails the turn at the deadline', async () => {
  const h = harness();
  await withDiagnosticSinkForTest(async () => {
    await startedWithTurn(h);
    h.query().push(textDelta('orphan'));
    const terminal = await h.terminalOf('t1');
    assert.equal(terminal.type, 'turn_failed');
    assert.equal(
      terminal.payload.error,
      'Claude provider turn identity was not persisted before the acceptance deadline',
    );
    assert.equal(h.events.filter((event) => event.type === 'assistant_delta').length, 0, 'nothing unbound leaks out');
  });
  await h.runtime.close();
});

test('a failed root result fails the turn with the first error', async () => {
  const h = harness();
  const correlation = await startedWithTurn(h);
  h.query().push(promptEcho(correlation), errorResult(['model overloaded']));
  const terminal = await h.terminalOf('t1');
  assert.equal(terminal.type, 'turn_failed');
  assert.equal(terminal.payload.error, 'model overloaded');
  assert.equal(terminal.payload.providerTurnId, correlation);
  await h.runtime.close();
});

test('a 401 before acceptance fails fast as rejected and retires the Query', async () => {
  const h = harness();
  await startedWithTurn(h);
  h.query().push(apiRetry(401));
  const terminal = await h.terminalOf('t1');
  assert.deepEqual(terminal.payload, {
    turnId: 't1',
    error: 'Claude API rejected the credentials (HTTP 401 authentication_failed)',
    code: 'authentication_failed',
    apiErrorStatus: 401,
    dispatchDisposition: 'rejected',
  });
  assert.ok(h.query().calls.includes('close'), 'the retrying Query is closed');
  await h.runtime.exec(execPayload('t2'));
  const next = await h.nextQuery(1);
  await next.waitForPrompts(1);
  assert.equal(next.options.resume, h.runtime.providerSessionId, 'the next turn resumes the session');
  await h.runtime.close();
});

test('a child that dies mid-turn fails the active turn clearly and the queued one as ended; the session resumes', async () => {
  const h = harness();
  const correlation = await startedWithTurn(h);
  await h.runtime.exec(execPayload('t2'));
  await h.query().waitForPrompts(2);
  h.query().push(promptEcho(correlation), textDelta('partial'));
  await h.waitFor((event) => event.type === 'assistant_delta', 'the partial answer');
  h.query().fail(new Error('Claude Code process exited with code 137\nstderr: SECRET'));
  const first = await h.terminalOf('t1');
  const second = await h.terminalOf('t2');
  assert.equal(first.payload.error, 'Claude Code process exited unexpectedly (code 137)');
  assert.equal(first.payload.providerTurnId, correlation);
  assert.equal(second.payload.error, 'Claude SDK session ended');

  await h.runtime.exec(execPayload('t3'));
  const next = await h.nextQuery(1);
  const [prompt] = await next.waitForPrompts(1);
  assert.equal(next.options.resume, h.runtime.providerSessionId);
  assert.ok(prompt?.uuid);
  next.push(promptEcho(prompt.uuid), assistantText('again'), successResult());
  assert.equal((await h.terminalOf('t3')).type, 'turn_completed');
  await h.runtime.close();
});

test('a turn whose answer streamed but whose result never comes fails after the result timeout', async () => {
  const h = harness({ timers: { resultTimeoutMs: 40 } });
  const correlation = await startedWithTurn(h);
  h.query().push(
    promptEcho(correlation),
    textDelta('done'),
    streamEvent({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } }),
  );
  const terminal = await h.terminalOf('t1');
  assert.equal(terminal.type, 'turn_failed');
  assert.equal(terminal.payload.error, "Claude SDK result did not arrive within 40ms after the turn's answer");
  assert.ok(h.query().calls.includes('close'), 'the stuck Query is retired');
  await h.runtime.close();
});

test('a tool call in progress does not arm the result watchdog', async () => {
  const h = harness({ timers: { resultTimeoutMs: 20 } });
  const correlation = await startedWithTurn(h);
  h.query().push(
    promptEcho(correlation),
    streamEvent({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 1 } }),
  );
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(h.events.filter((event) => TERMINALS.has(event.type)).length, 0);
  h.query().push(successResult());
  assert.equal((await h.terminalOf('t1')).type, 'turn_completed');
  await h.runtime.close();
});

test('host context leads the prompt content and images pass through as blocks', async () => {
  const h = harness();
  await h.runtime.start();
  await h.runtime.exec(
    execPayload('t1', {
      hostContext: '<context/>',
      promptCorrelationId: 'chosen-uuid',
      content: [
        { type: 'text', text: 'look' },
        { type: 'image', mimeType: 'image/png', data: 'AAAA' },
        { type: 'image', url: 'http://insecure.example/x.png' },
      ],
    }),
  );
  const [prompt] = await h.query().waitForPrompts(1);
  assert.equal(prompt?.uuid, 'chosen-uuid');
  assert.deepEqual(prompt?.message.content, [
    { type: 'text', text: '<context/>' },
    { type: 'text', text: 'look' },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
  ]);
  await h.runtime.close();
});

test('close ends the session for good and fails what was still running', async () => {
  const h = harness();
  await startedWithTurn(h);
  await h.runtime.close();
  const terminal = await h.terminalOf('t1');
  assert.equal(terminal.payload.error, 'Claude SDK session closed');
  assert.ok(h.query().calls.includes('close'));
  assert.ok(!h.query().calls.includes('interrupt'), 'close does not interrupt');
  await h.runtime.exec(execPayload('t2'));
  const late = await h.terminalOf('t2');
  assert.equal(late.payload.error, 'Claude SDK query is closed');
});

test('cancel of a bound turn interrupts, closes, then publishes turn_canceled (provider_active)', async () => {
  const h = harness();
  const correlation = await startedWithTurn(h);
  h.query().push(promptEcho(correlation), textDelta('partial'));
  await h.waitFor((event) => event.type === 'assistant_delta', 'the partial answer');
  await withDiagnosticSinkForTest(async (lines) => {
    const result = await h.runtime.cancel(
      { agentSessionId: 's1', turnId: 't1', interruptTimeoutMs: 100, drainTimeoutMs: 100 },
      { requestId: 'r1' },
    );
    assert.deepEqual(result, {
      canceled: true,
      disposition: 'provider_active',
      turnId: 't1',
      providerTurnId: correlation,
      dispatchPhase: 'streaming',
      queryRetired: true,
    });
    assert.deepEqual(h.query().calls, ['interrupt', 'close']);
    const stages = lines.map((line) => JSON.parse(line.slice(line.indexOf(' ') + 1)).stage);
    assert.equal(stages[0], 'cancel_received');
    assert.equal(stages.at(-1), 'cancel_succeeded');
  });
  const terminal = await h.terminalOf('t1');
  assert.deepEqual(terminal, { type: 'turn_canceled', payload: { turnId: 't1', providerTurnId: correlation } });
  await h.runtime.close();
});

test('cancel of a turn that never reached a Query ends it locally (pre_accept)', async () => {
  const h = harness();
  await h.runtime.start();
  await h.runtime.exec(execPayload('t1'));
  const result = await withDiagnosticSinkForTest(() =>
    h.runtime.cancel(
      { agentSessionId: 's1', turnId: 't1', interruptTimeoutMs: 100, drainTimeoutMs: 100 },
      { requestId: 'r1' },
    ),
  );
  assert.equal(result.disposition, 'pre_accept');
  assert.equal(result.dispatchPhase, 'queued');
  assert.equal((await h.terminalOf('t1')).type, 'turn_canceled');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(h.query().prompts.length, 0, 'the canceled prompt is never sent');
  await h.runtime.close();
});

test('cancel of an unknown turn reports absent or mismatch without touching the Query', async () => {
  const h = harness();
  await h.runtime.start();
  const budgets = { agentSessionId: 's1', interruptTimeoutMs: 100, drainTimeoutMs: 100 };
  await withDiagnosticSinkForTest(async () => {
    const absentResult = await h.runtime.cancel({ ...budgets, turnId: 'nope' }, { requestId: 'r1' });
    assert.equal(absentResult.disposition, 'absent');
    await h.runtime.exec(execPayload('t1'));
    const mismatch = await h.runtime.cancel({ ...budgets, turnId: 'other' }, { requestId: 'r2' });
    assert.equal(mismatch.disposition, 'mismatch');
  });
  assert.deepEqual(h.query().calls, []);
  await h.runtime.close();
});

test('transcript reads look in the CLAUDE_CONFIG_DIR of the child env, not the sidecar one', async () => {
  const seen: (string | undefined)[] = [];
  const h = harness({
    payload: startPayload({ env: { CLAUDE_CONFIG_DIR: '/child/config' } }),
    resolveTurnIdentity: async (request) => {
      seen.push(request.claudeConfigDir);
      return { providerTurnId: 'p1', providerCheckpointMessageId: 'p1' };
    },
  });
  await withDiagnosticSinkForTest(async () => {
    await startedWithTurn(h);
    h.query().push(assistantText('x'), successResult());
    await h.terminalOf('t1');
  });
  assert.deepEqual(seen, ['/child/config']);
  assert.equal(h.query().options.env?.CLAUDE_CONFIG_DIR, '/child/config');
  await h.runtime.close();
});

test('root output with no turn to own it runs in a synthetic turn', async () => {
  const h = harness();
  const correlation = await startedWithTurn(h);
  h.query().push(promptEcho(correlation), assistantText('answer'), successResult());
  await h.terminalOf('t1');
  h.query().push(assistantText('background follow-up'), successResult({ origin: { kind: 'task-notification' } }));
  const started = await h.waitFor((event) => event.type === 'turn_started', 'the synthetic turn');
  assert.equal(started.payload.synthetic, true);
  const syntheticId = started.payload.turnId as string;
  assert.match(syntheticId, /^synthetic-/);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(
    h.events.filter((event) => TERMINALS.has(event.type) && event.payload.turnId === syntheticId).length,
    0,
    'a follow-up result does not end the continuation: the session going idle does',
  );
  h.query().push(sessionIdle());
  const terminal = await h.terminalOf(syntheticId);
  assert.equal(terminal.type, 'turn_completed');
  assert.equal(terminal.payload.stopReason, 'background_agent_idle');
  await h.runtime.close();
});

test('guidance interrupts, swallows the interrupted result and keeps the turn going', async () => {
  const h = harness();
  const correlation = await startedWithTurn(h);
  h.query().push(promptEcho(correlation), textDelta('working'));
  await h.waitFor((event) => event.type === 'assistant_delta', 'the first delta');
  await h.runtime.guide({ agentSessionId: 's1', prompt: 'focus on tests', content: [] });
  assert.deepEqual(h.query().calls, ['interrupt']);
  const guidance = h.events.find((event) => event.type === 'guidance_interrupted');
  assert.deepEqual(guidance?.payload, { turnId: 't1' });
  const prompts = await h.query().waitForPrompts(2);
  assert.deepEqual(prompts[1]?.message.content, [{ type: 'text', text: 'focus on tests' }]);
  h.query().push(errorResult(['[ede_diagnostic] interrupted']));
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(h.events.filter((event) => TERMINALS.has(event.type)).length, 0, 'the interrupted result is absorbed');
  h.query().push(assistantText('guided answer'), successResult());
  const terminal = await h.terminalOf('t1');
  assert.equal(terminal.type, 'turn_completed');
  assert.equal(terminal.payload.providerTurnId, correlation);
  await h.runtime.close();
});

test('session_state follows each new root assistant message, so the resume cursor is current mid-turn', async () => {
  const h = harness();
  const correlation = await startedWithTurn(h);
  const first = assistantText('Looking.', { uuid: 'assistant-1' });
  const second = assistantText('Found it.', { uuid: 'assistant-2' });
  h.query().push(promptEcho(correlation), first, first, second, successResult());
  await h.terminalOf('t1');
  const cursors = h.events.flatMap((event, index) =>
    event.type === 'session_state'
      ? [{ index, at: (event.payload.resumeCursor as { resumeSessionAt?: string }).resumeSessionAt }]
      : [],
  );
  const terminal = h.indexOf((event) => TERMINALS.has(event.type));
  assert.deepEqual(
    cursors.filter((cursor) => cursor.index < terminal).map((cursor) => cursor.at),
    ['assistant-1', 'assistant-2'],
    'one session_state per new assistant uuid (a repeated uuid is no change), before the terminal',
  );
  assert.equal(cursors.at(-1)?.at, 'assistant-2', 'the settle reports the same position');
  await h.runtime.close();
});

test('apply_settings applies live and reports the session state with the model catalogue', async () => {
  const h = harness();
  await h.runtime.start();
  await h.runtime.applySettings({
    agentSessionId: 's1',
    model: 'sonnet test',
    permissionMode: 'dontAsk',
    effort: 'high',
    speed: 'fast',
  });
  assert.deepEqual(h.query().calls, [
    'setPermissionMode:default',
    'setModel:claude-sonnet-test',
    'applyFlagSettings:{"effortLevel":"high","fastMode":true}',
  ]);
  const state = h.events.at(-1);
  assert.ok(state?.type === 'session_state');
  const [option] = state.payload.configOptions as { currentValue: string; options: unknown[] }[];
  assert.equal(option?.currentValue, 'claude-sonnet-test');
  assert.equal(state.payload.model, 'claude-sonnet-test', 'model carries the selection too');
  assert.equal(option?.options.length, 2);
  await h.runtime.close();
});

test("compaction before a prompt's echo belongs to that turn, published after its identity", async () => {
  const h = harness({
    resolveTurnIdentity: async (request) => ({
      providerTurnId: request.correlationId,
      providerCheckpointMessageId: request.correlationId,
    }),
  });
  await withDiagnosticSinkForTest(async () => {
    await startedWithTurn(h, 't1', { prompt: '/compact' });
    const status = (fields: Record<string, unknown>) =>
      ({ type: 'system', subtype: 'status', uuid: randomUUID(), session_id: 's', ...fields }) as unknown as SDKMessage;
    h.query().push(status({ status: 'compacting' }), status({ status: null, compact_result: 'success' }));
    h.query().push(successResult());
    await h.terminalOf('t1');
  });
  const sequence = h.events
    .filter((event) => event.type.startsWith('compact_') || event.type === 'provider_turn_identity_resolved')
    .map((event) => [event.type, event.payload.turnId]);
  assert.deepEqual(sequence, [
    ['provider_turn_identity_resolved', 't1'],
    ['compact_started', 't1'],
    ['compact_completed', 't1'],
  ]);
  await h.runtime.close();
});

test('an assistant message Claude Code re-sends (same uuid) is history, not output of the later turn', async () => {
  const h = harness();
  const first = await startedWithTurn(h);
  const answer = assistantText('the first answer');
  h.query().push(promptEcho(first), answer, successResult());
  await h.terminalOf('t1');
  await h.runtime.exec(execPayload('t2'));
  const prompts = await h.query().waitForPrompts(2);
  const second = prompts[1]?.uuid;
  assert.ok(second);
  h.query().push(promptEcho(second), answer, assistantText('the second answer'), successResult());
  await h.terminalOf('t2');
  assert.deepEqual(
    h.events
      .filter((event) => event.type === 'assistant_completed')
      .map((event) => [event.payload.turnId, event.payload.content]),
    [
      ['t1', 'the first answer'],
      ['t2', 'the second answer'],
    ],
  );
  await h.runtime.close();
});

test('TUTTI_CLAUDE_AUTH_REFRESH_DEBUG writes the session and Query stages with a credential snapshot, never the key', async () => {
  const key = 'sk-ant-do-not-log';
  const configDir = join(tmpdir(), 'outrigger-no-such-config');
  const authStages = (lines: readonly string[]) =>
    lines
      .filter((line) => line.startsWith(`${AUTH_REFRESH_DEBUG_PREFIX} `))
      .map((line) => JSON.parse(line.slice(AUTH_REFRESH_DEBUG_PREFIX.length + 1)) as Record<string, unknown>);
  const quiet = await withDiagnosticSinkForTest(async (lines) => {
    const h = harness({ processEnv: { CLAUDE_CONFIG_DIR: configDir, ANTHROPIC_API_KEY: key } });
    await h.runtime.start();
    await h.runtime.close();
    return authStages(lines);
  });
  assert.deepEqual(quiet, [], 'off unless the switch is set');
  const records = await withDiagnosticSinkForTest(async (lines) => {
    const h = harness({
      processEnv: { CLAUDE_CONFIG_DIR: configDir, ANTHROPIC_API_KEY: key, TUTTI_CLAUDE_AUTH_REFRESH_DEBUG: '1' },
    });
    await h.runtime.start();
    await h.runtime.close();
    assert.ok(
      lines.every((line) => !line.includes(key)),
      'the key never reaches a diagnostic',
    );
    return authStages(lines);
  });
  assert.deepEqual(
    records.map((record) => record.stage),
    ['session_starting', 'query_created', 'session_started', 'session_closed'],
  );
  const created = records[1];
  assert.equal(created?.generationId, 1);
  assert.equal(created?.apiKeyPresent, true);
  assert.equal(created?.agentSessionId, 's1');
  assert.equal(created?.credentialsFilePresent, false);
});

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { InteractiveResult, SidecarEvent } from '@outrigger/protocol';
import { type SpawnedSidecar, spawnSidecar } from '../src/testing/spawnSidecar.ts';
import { testDriverEnv } from '../src/testing/testDriverEnv.ts';
import { isTerminalOf } from '../src/testing/turnEvents.ts';

/* Test-driver mode through the real process: the scripted conformance vectors, no SDK, no network. */

const SESSION = 'driver-session';
let sidecar: SpawnedSidecar;
let turnCounter = 0;

before(async () => {
  sidecar = await spawnSidecar({
    env: testDriverEnv(),
    requestTimeoutMs: 10_000,
  });
});

after(() => sidecar?.stop());

function turnEvents(turnId: string): SidecarEvent[] {
  return sidecar.events.filter((event) => 'turnId' in event.payload && event.payload.turnId === turnId);
}

async function exec(prompt: string) {
  turnCounter += 1;
  const turnId = `turn-${turnCounter}`;
  await sidecar.request('exec', { agentSessionId: SESSION, turnId, prompt });
  return turnId;
}

function waitForTurn(turnId: string, type: string) {
  return sidecar.waitForEvent(
    (event) => event.type === type && 'turnId' in event.payload && event.payload.turnId === turnId,
    { timeoutMs: 5_000, description: `${type} of ${turnId}` },
  );
}

function submitInteractive(turnId: string, requestId: string, action: string, optionId: string, payload = {}) {
  return sidecar.request<InteractiveResult>('submit_interactive', {
    agentSessionId: SESSION,
    turnId,
    requestId,
    action,
    optionId,
    payload,
  });
}

/** The text of the turn's completed assistant message. */
function completedTextOf(turnId: string): string {
  const completed = turnEvents(turnId).find((event) => event.type === 'assistant_completed');
  assert.ok(completed?.type === 'assistant_completed');
  return completed.payload.content;
}

async function answer(prompt: string, requested: string, action: string, optionId: string, payload = {}) {
  const turnId = await exec(prompt);
  const request = await waitForTurn(turnId, requested);
  assert.ok(request.type === 'approval_requested' || request.type === 'user_input_requested');
  const result = await submitInteractive(turnId, request.payload.requestId, action, optionId, payload);
  const terminal = await sidecar.waitForEvent(isTerminalOf(turnId), {
    timeoutMs: 5_000,
    description: `the terminal of ${turnId}`,
  });
  return { turnId, request, result, terminal };
}

/** An assistant_delta whose chunk is the whole text so far, `text`, bound to the turn's provider identity. */
function assertWholeDelta(event: SidecarEvent | undefined, text: string, providerTurnId: string): void {
  assert.ok(event?.type === 'assistant_delta');
  assert.equal(event.payload.content, text);
  assert.equal(event.payload.snapshot, text);
  assert.equal((event.payload as { providerTurnId?: string }).providerTurnId, providerTurnId);
}

test('start publishes session_started before its ok', async () => {
  const result = await sidecar.request<{ providerSessionId: string }>('start', {
    agentSessionId: SESSION,
    providerSessionId: 'driver-provider-session',
    cwd: '/tmp',
  });
  assert.equal(result.providerSessionId, 'driver-provider-session');
  const started = sidecar.events.find((event) => event.type === 'session_started');
  assert.ok(started?.type === 'session_started');
  assert.equal(started.payload.providerSessionId, 'driver-provider-session');
});

test('a plain prompt is echoed after the identity event', async () => {
  const turnId = await exec('hello driver');
  const terminal = await waitForTurn(turnId, 'turn_completed');
  const events = turnEvents(turnId);
  assert.deepEqual(
    events.map((event) => event.type),
    ['provider_turn_identity_resolved', 'assistant_delta', 'assistant_completed', 'turn_completed'],
  );
  const identity = events[0];
  assert.ok(identity?.type === 'provider_turn_identity_resolved');
  assertWholeDelta(events[1], 'Echo: hello driver', identity.payload.providerTurnId);
  assert.ok(terminal.type === 'turn_completed');
  assert.equal(terminal.payload.providerTurnId, identity.payload.providerTurnId);
});

test('an allowed approval completes the turn; an identical replay is reported, not applied twice', async () => {
  const { turnId, request, result, terminal } = await answer('needs approval', 'approval_requested', 'allow', 'allow');
  assert.deepEqual(result, { disposition: 'answered', replayed: false });
  assert.ok(request.type === 'approval_requested');
  assert.equal(request.payload.toolCallId, 'test-approval-tool');
  assert.equal(request.payload.toolName, 'Bash');
  assert.deepEqual(request.payload.input, { command: 'touch approval.txt' });
  assert.deepEqual(
    request.payload.options.map((option) => option.optionId),
    ['allow_always', 'allow', 'reject'],
  );
  assert.equal(terminal.type, 'turn_completed');
  assert.equal(completedTextOf(turnId), 'Approval accepted.');
  const replay = await submitInteractive(turnId, request.payload.requestId, 'allow', 'allow');
  assert.deepEqual(replay, { disposition: 'answered', replayed: true });
});

test('a rejected approval fails the turn', async () => {
  const { terminal } = await answer('approval again', 'approval_requested', 'reject', 'reject');
  assert.ok(terminal.type === 'turn_failed');
  assert.equal(terminal.payload.error, 'User refused permission to run tool');
});

test('an answered question completes the turn', async () => {
  const { request, terminal, turnId } = await answer('ask-user something', 'user_input_requested', 'allow', 'allow', {
    answers: { 'Pick one': 'A' },
  });
  assert.ok(request.type === 'user_input_requested');
  assert.equal(request.payload.toolName, 'AskUserQuestion');
  const questions = (request.payload.input as { questions: { question: string }[] }).questions;
  assert.equal(questions[0]?.question, 'Pick one');
  assert.equal(terminal.type, 'turn_completed');
  assert.equal(completedTextOf(turnId), 'Question answered.');
});

test('exit-plan captures the plan when a mode is chosen and fails when planning continues', async () => {
  const accepted = await answer('exit-plan now', 'user_input_requested', 'allow', 'default');
  assert.ok(accepted.request.type === 'user_input_requested');
  // Root without IS_SANDBOX=1 may not bypass (Claude Code would refuse), so the option is offered only elsewhere.
  const bypassAllowed = process.geteuid?.() !== 0;
  assert.deepEqual(
    accepted.request.payload.options.map((option) => option.optionId),
    [...(bypassAllowed ? ['bypassPermissions'] : []), 'auto', 'acceptEdits', 'default', 'plan'],
  );
  assert.deepEqual(accepted.request.payload.input, { plan: '1. Inspect\n2. Implement\n3. Verify' });
  assert.equal(accepted.terminal.type, 'turn_completed');
  const kept = await answer('exit-plan again', 'user_input_requested', 'allow', 'plan');
  assert.ok(kept.terminal.type === 'turn_failed');
  assert.equal(kept.terminal.payload.error, 'User rejected request to exit plan mode.');
});

test('a contradictory answer is a refusal: reject in optionId wins over an allowing action', async () => {
  const { terminal } = await answer('approval contradicted', 'approval_requested', 'allow', 'reject');
  assert.ok(terminal.type === 'turn_failed');
  assert.equal(terminal.payload.error, 'User refused permission to run tool');
  const question = await answer('ask-user contradicted', 'user_input_requested', 'allow', 'reject', {
    answers: { 'Pick one': 'A' },
  });
  assert.ok(question.terminal.type === 'turn_failed');
  assert.equal(question.terminal.payload.error, 'User declined to answer the question');
});

test('exit-plan offers bypass where the sidecar may bypass (IS_SANDBOX=1), and accepts it', async () => {
  const sandboxed = await spawnSidecar({
    env: testDriverEnv({ IS_SANDBOX: '1' }),
    requestTimeoutMs: 10_000,
  });
  try {
    await sandboxed.request('start', { agentSessionId: 'sandboxed', cwd: '/tmp' });
    await sandboxed.request('exec', { agentSessionId: 'sandboxed', turnId: 'plan-bypass', prompt: 'exit-plan' });
    const request = await sandboxed.waitForEvent((event) => event.type === 'user_input_requested', {
      timeoutMs: 5_000,
      description: 'the ExitPlanMode request',
    });
    assert.ok(request.type === 'user_input_requested');
    assert.deepEqual(request.payload.options[0], {
      kind: 'allow_always',
      name: 'Yes, and bypass permissions',
      optionId: 'bypassPermissions',
    });
    await sandboxed.request('submit_interactive', {
      agentSessionId: 'sandboxed',
      turnId: 'plan-bypass',
      requestId: request.payload.requestId,
      action: 'allow',
      optionId: 'bypassPermissions',
      payload: {},
    });
    const terminal = await sandboxed.waitForEvent(isTerminalOf('plan-bypass'), { timeoutMs: 5_000 });
    assert.equal(terminal.type, 'turn_completed');
  } finally {
    await sandboxed.stop();
  }
});

test('guide echoes one delta on the active turn, and needs one', async () => {
  // A pending approval keeps the driver's turn active.
  const turnId = await exec('guided approval');
  const request = await waitForTurn(turnId, 'approval_requested');
  assert.ok(request.type === 'approval_requested');
  const before = turnEvents(turnId).length;
  await sidecar.request('guide', { agentSessionId: SESSION, prompt: 'steer left', content: [] });
  const guided = turnEvents(turnId).slice(before);
  assert.deepEqual(
    guided.map((event) => event.type),
    ['guidance_interrupted', 'assistant_delta'],
    'both published before the ok',
  );
  const identity = turnEvents(turnId).find((event) => event.type === 'provider_turn_identity_resolved');
  assert.ok(identity?.type === 'provider_turn_identity_resolved');
  assertWholeDelta(guided[1], 'Echo: steer left', identity.payload.providerTurnId);

  await submitInteractive(turnId, request.payload.requestId, 'allow', 'allow');
  await waitForTurn(turnId, 'turn_completed');
  await assert.rejects(sidecar.request('guide', { agentSessionId: SESSION, prompt: 'too late', content: [] }), {
    message: 'Claude SDK guidance requires an active turn',
  });
  assert.equal(
    sidecar.events.filter((event) => event.type === 'assistant_delta' && event.payload.content === 'too late').length,
    0,
  );
});

test('close answers ok and the end of input exits 0', async () => {
  await sidecar.request('close', { agentSessionId: SESSION });
  assert.deepEqual(await sidecar.stop(), { code: 0, signal: null });
  assert.deepEqual(sidecar.protocolErrors, []);
  assert.deepEqual(sidecar.stderrLines, []);
});

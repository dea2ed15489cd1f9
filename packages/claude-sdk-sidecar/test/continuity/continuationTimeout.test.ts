import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { MockRule } from '@outrigger/mock-anthropic';
import {
  assertEveryTurnEndedOnce,
  assistantTextOf,
  backgroundBash,
  type ContinuityRig,
  runTurn,
  startBypassSession,
  startContinuityRig,
  turnIdOf,
  waitForTerminal,
} from './continuityHarness.ts';

/*
 * The continuation start timeout through the real sidecar process. A background job ends after the root
 * turn settled, so the sidecar reserves a synthetic continuation turn; mock-anthropic never answers the
 * follow-up request Claude Code makes for the job's notification. With the timeout configured short in
 * the sidecar's env, the reservation must end as a timeout and nothing of the abandoned follow-up may
 * reach the next user turn, also when that turn's prompt was sent while the follow-up was awaited.
 */

const SESSION = 'continuity-timeout';
const CONTINUATION_TIMEOUT_MS = 1_500;
const LATE_OUTPUT = 'LATE-FOLLOWUP must never be shown';

let stalledRequestIndex: number | undefined;
/** The jobs whose first follow-up request stalled; anything Claude Code asks for a job later is late output. */
const stalledJobs = new Set<string>();
let queuedPromptCarriedNotification: boolean | undefined;

const rules: MockRule[] = [
  (request) => {
    const notification = request.taskNotification;
    if (request.isNewPrompt && request.lastUserText.includes('while the follow-up stalls')) {
      // Claude Code hands the interrupted follow-up's notification to the model with this prompt.
      queuedPromptCarriedNotification = notification !== undefined;
      return { content: [{ type: 'text', text: 'Plain answer to the question asked meanwhile.' }] };
    }
    if (notification !== undefined) {
      const job = notification.includes('queued-behind job') ? 'queued-behind job' : 'stalled job';
      if (stalledJobs.has(job)) return { content: [{ type: 'text', text: LATE_OUTPUT }] };
      stalledJobs.add(job);
      if (job === 'stalled job') stalledRequestIndex = request.index;
      return { stall: true };
    }
    const text = request.lastUserText;
    if (text.includes('bg-stalled')) {
      if (request.toolResults.length > 0) return { content: [{ type: 'text', text: 'Launched the job.' }] };
      return { content: [backgroundBash(0.5, 'stalled job')] };
    }
    if (text.includes('bg-queued-behind')) {
      if (request.toolResults.length > 0) return { content: [{ type: 'text', text: 'Launched the job.' }] };
      return { content: [backgroundBash(0.5, 'queued-behind job')] };
    }
    if (request.isNewPrompt) return { content: [{ type: 'text', text: `Plain answer to: ${text.slice(0, 40)}` }] };
    return undefined;
  },
];

let rig: ContinuityRig;

before(async () => {
  rig = await startContinuityRig({
    rules,
    env: { OUTRIGGER_SIDECAR_CONTINUATION_TIMEOUT_MS: String(CONTINUATION_TIMEOUT_MS) },
  });
  await startBypassSession(rig, SESSION);
});

after(async () => {
  await rig?.dispose([SESSION]);
});

test('a continuation with no follow-up output times out, and its late output never reaches the next turn', async () => {
  const { sidecar, mock } = rig;
  const root = await runTurn(sidecar, SESSION, 'bg-stalled: launch the job');
  assert.equal(root.terminal.type, 'turn_completed', 'the root turn itself completes');

  const delayed = await sidecar.waitForEvent((event) => event.type === 'continuation_delayed', {
    fromIndex: root.from,
    timeoutMs: 10_000,
    description: `continuation_delayed (the sidecar runs with OUTRIGGER_SIDECAR_CONTINUATION_TIMEOUT_MS=${CONTINUATION_TIMEOUT_MS})`,
  });
  assert.ok(delayed.type === 'continuation_delayed');
  assert.notEqual(stalledRequestIndex, undefined, 'precondition: Claude Code asked for the follow-up that stalls');
  const continuationTurnId = delayed.payload.turnId;
  assert.notEqual(continuationTurnId, root.turnId, 'the root turn had already settled; a synthetic turn waited');
  assert.ok(
    delayed.payload.waitedMs >= CONTINUATION_TIMEOUT_MS,
    `waitedMs reports at least the configured timeout; got ${delayed.payload.waitedMs}`,
  );

  const terminal = await waitForTerminal(sidecar, continuationTurnId, 'the timed-out continuation', 15_000);
  const events = sidecar.events.slice(root.from);
  const announced = events.find(
    (event) => event.type === 'turn_started' && event.payload.turnId === continuationTurnId,
  );
  assert.ok(announced?.type === 'turn_started', 'the continuation turn was announced');
  assert.equal(announced.payload.synthetic, true, 'the continuation turn is synthetic');
  assert.ok(events.indexOf(announced) < events.indexOf(delayed), 'the turn was announced before it timed out');
  assert.ok(events.indexOf(delayed) < events.indexOf(terminal), 'continuation_delayed comes before the terminal');
  assert.equal(terminal.type, 'turn_completed');
  assert.deepEqual(
    {
      stopReason: (terminal.payload as { stopReason?: unknown }).stopReason,
      syntheticTimeout: (terminal.payload as { syntheticTimeout?: unknown }).syntheticTimeout,
    },
    { stopReason: 'background_agent_continuation_timeout', syntheticTimeout: true },
  );

  const next = await runTurn(sidecar, SESSION, 'a plain question after the timeout');
  assert.equal(next.terminal.type, 'turn_completed', 'the next user turn completes');
  assert.equal((next.terminal.payload as { stopReason?: unknown }).stopReason, 'end_turn');
  assert.equal(
    assistantTextOf(sidecar.events, next.turnId),
    'Plain answer to: a plain question after the timeout',
    'the next turn carries only its own answer',
  );

  const all = sidecar.events.slice(root.from);
  assert.equal(
    all.filter((event) => event.type === 'assistant_completed' && event.payload.content.includes('LATE-FOLLOWUP'))
      .length,
    0,
    'no late follow-up output was published on any turn',
  );
  const laterSynthetic = all
    .slice(all.indexOf(terminal))
    .filter((event) => event.type === 'turn_started' && event.payload.synthetic === true);
  assert.deepEqual(laterSynthetic, [], 'the abandoned follow-up opened no new synthetic turn');
  assertEveryTurnEndedOnce(all);
  assert.deepEqual(sidecar.protocolErrors, [], 'every event matches the protocol schemas');
  assert.deepEqual(mock.unmatched, [], 'mock-anthropic answered every model request');
});

test('a prompt sent while the stalled follow-up is awaited runs once the continuation times out', async () => {
  const { sidecar, mock } = rig;
  const root = await runTurn(sidecar, SESSION, 'bg-queued-behind: launch the job');
  const reserved = await sidecar.waitForEvent(
    (event) => event.type === 'turn_started' && event.payload.synthetic === true,
    { fromIndex: root.from, timeoutMs: 10_000, description: "the continuation reserved for the job's notification" },
  );
  const continuationTurnId = turnIdOf(reserved);
  assert.ok(continuationTurnId);
  // The prompt waits in Claude Code behind the stalled follow-up; the continuation's deadline frees it.
  const next = await runTurn(sidecar, SESSION, 'a question while the follow-up stalls');
  assert.deepEqual(
    { type: next.terminal.type, stopReason: (next.terminal.payload as { stopReason?: unknown }).stopReason },
    { type: 'turn_completed', stopReason: 'end_turn' },
    'the prompt gets its own answer once the stalled follow-up is interrupted',
  );
  assert.equal(assistantTextOf(sidecar.events, next.turnId), 'Plain answer to the question asked meanwhile.');
  assert.equal(
    queuedPromptCarriedNotification,
    true,
    "measured: Claude Code hands the interrupted follow-up's notification to the model with the queued prompt",
  );
  const all = sidecar.events.slice(root.from);
  const terminal = all.find((event) => event.type === 'turn_completed' && event.payload.turnId === continuationTurnId);
  assert.ok(terminal?.type === 'turn_completed', 'the continuation ended');
  assert.equal(terminal.payload.stopReason, 'background_agent_continuation_timeout');
  assert.ok(all.indexOf(terminal) < all.indexOf(next.terminal), 'the continuation timed out before the prompt ran');
  assertEveryTurnEndedOnce(all);
  assert.deepEqual(sidecar.protocolErrors, []);
  assert.deepEqual(mock.unmatched, []);
});

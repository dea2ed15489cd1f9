import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { MockRule } from '@outrigger/mock-anthropic';
import type { SidecarEvent } from '@outrigger/protocol';
import { youngestChild } from '../../src/testing/processTree.ts';
import { TURN_OUTPUT_EVENT_TYPES } from '../../src/testing/turnEvents.ts';
import {
  assertEveryTurnEndedOnce,
  assistantTextOf,
  backgroundBash,
  type ContinuityRig,
  eventsOfTurn,
  onlyTerminalOf,
  providerTurnIdOf,
  runTurn,
  startBypassSession,
  startContinuityRig,
  turnIdOf,
  waitForTerminal,
} from './continuityHarness.ts';

/*
 * A user prompt sent while a background job's follow-up (a Bash job's or an Agent task's) is owed or
 * running, through the real sidecar process, the real Claude Code binary and mock-anthropic. Measured with
 * the real binary: Claude Code queues the job's notification first, so it runs the follow-up to its own
 * result (`origin: task-notification`) and only then starts the prompt (`command_lifecycle started`,
 * `system/init`, the prompt's echo), with no `session_state_changed: idle` in between. The follow-up's
 * report belongs to the turn holding the background work (a synthetic continuation turn, or the launching
 * turn retained for it); the user's turn gets only its own answer; every turn ends exactly once.
 */

const SESSION = 'continuity-follow-up-before-prompt';

/** Each follow-up streams for about 1.5 s, so a prompt sent at its start waits behind it. */
function slowReport(text: string) {
  return { content: [{ type: 'text' as const, text, chunkSize: 2, chunkDelayMs: 40 }] };
}

const REPORT = {
  reserved: 'REPORT-RESERVED the reserved job finished; here is its report.',
  streaming: 'REPORT-STREAMING the streaming job finished; here is its report.',
  retained: 'REPORT-RETAINED the retained job finished; here is its report.',
  canceled: 'REPORT-CANCELED the job finished; this report must survive the cancel.',
  agent: 'REPORT-AGENT the delegated agent finished; here is its report.',
};
const RETAINED_ANSWER = 'RETAINED-ANSWER streaming slowly while the quick job runs to its end.';

function answerTo(tag: string): string {
  return `ANSWER-${tag} only the user's own answer.`;
}

const rules: MockRule[] = [
  (request) => {
    const notification = request.taskNotification;
    if (notification !== undefined) {
      for (const kind of Object.keys(REPORT) as (keyof typeof REPORT)[]) {
        if (notification.includes(`${kind} job`)) return slowReport(REPORT[kind]);
      }
      return undefined;
    }
    const text = request.lastUserText;
    // The delegated agent's own model requests: it works for about half a second.
    if (text.includes('SUBAGENT-WORK'))
      return { content: [{ type: 'text', text: 'Agent notes.', chunkDelayMs: 100, chunkSize: 2 }] };
    const launch = /launch-(\w+)/.exec(text)?.[1];
    if (launch === 'agent') {
      if (request.toolResults.length > 0) return { content: [{ type: 'text', text: 'Delegated the agent job.' }] };
      const input = { description: 'agent job', prompt: 'SUBAGENT-WORK take notes', subagent_type: 'general-purpose' };
      return { content: [{ type: 'tool_use', name: 'Agent', input }] };
    }
    if (launch === 'retained') {
      // The launch's answer streams for about 1.5 s, so the 0.2 s job ends while the turn still runs.
      if (request.toolResults.length > 0) {
        return { content: [{ type: 'text', text: RETAINED_ANSWER, chunkSize: 2, chunkDelayMs: 40 }] };
      }
      return { content: [backgroundBash(0.2, 'retained job')] };
    }
    if (launch) {
      if (request.toolResults.length > 0) return { content: [{ type: 'text', text: `Launched the ${launch} job.` }] };
      return { content: [backgroundBash(0.5, `${launch} job`)] };
    }
    const asked = /question-(\w+)/.exec(text)?.[1];
    if (asked && request.isNewPrompt) return { content: [{ type: 'text', text: answerTo(asked) }] };
    if (request.isNewPrompt) return { content: [{ type: 'text', text: `Plain answer to: ${text.slice(0, 40)}` }] };
    return undefined;
  },
];

let rig: ContinuityRig;

before(async () => {
  rig = await startContinuityRig({ rules });
  await startBypassSession(rig, SESSION);
});

after(async () => {
  await rig?.dispose([SESSION]);
});

interface UserTurn {
  turnId: string;
  correlationId: string;
}

/** Sends the user's prompt as an `exec` with a known correlation id; resolves once it is answered `ok`. */
async function execQuestion(tag: string): Promise<UserTurn> {
  const turn = { turnId: `user-${tag}-${randomUUID()}`, correlationId: randomUUID() };
  await rig.sidecar.request('exec', {
    agentSessionId: SESSION,
    turnId: turn.turnId,
    prompt: `question-${tag}: something else meanwhile`,
    promptCorrelationId: turn.correlationId,
  });
  return turn;
}

function stopReasonOf(event: SidecarEvent): unknown {
  return (event.payload as { stopReason?: unknown }).stopReason;
}

function isSyntheticStart(event: SidecarEvent): boolean {
  return event.type === 'turn_started' && event.payload.synthetic === true;
}

function firstIndex(events: readonly SidecarEvent[], predicate: (event: SidecarEvent) => boolean): number {
  return events.findIndex(predicate);
}

/** Turns that published a completed assistant message containing `text`. */
function carriersOf(events: readonly SidecarEvent[], text: string): string[] {
  const carriers = events
    .filter((event) => event.type === 'assistant_completed' && event.payload.content.includes(text))
    .map((event) => turnIdOf(event) ?? '');
  return [...new Set(carriers)];
}

/**
 * The follow-up's report is on the holder turn alone, which ends once with `background_agent` before the
 * user's turn is bound; the user's turn is bound to its own echo and carries only its own answer.
 */
function assertFollowUpThenUserTurn(
  events: readonly SidecarEvent[],
  holderTurnId: string,
  report: string,
  user: UserTurn,
  tag: string,
): void {
  assert.deepEqual(carriersOf(events, report), [holderTurnId], "the follow-up's report is published on the holder");
  const holderTerminal = onlyTerminalOf(events, holderTurnId);
  assert.equal(holderTerminal.type, 'turn_completed', 'the holder completes');
  assert.equal(
    stopReasonOf(holderTerminal),
    'background_agent',
    "the holder ends because the user's prompt took over, after the follow-up",
  );

  const userTerminal = onlyTerminalOf(events, user.turnId);
  assert.deepEqual(
    userTerminal.payload,
    { agentSessionId: SESSION, turnId: user.turnId, providerTurnId: user.correlationId, stopReason: 'end_turn' },
    "the user's turn ends with its own result, bound to its own echo (Claude Code kept the uuid)",
  );
  assert.equal(providerTurnIdOf(events, user.turnId), user.correlationId);
  assert.equal(assistantTextOf(events, user.turnId), answerTo(tag), "the user's turn carries only its own answer");

  const holderEnded = events.indexOf(holderTerminal);
  const userBound = firstIndex(
    events,
    (event) => event.type === 'provider_turn_identity_resolved' && turnIdOf(event) === user.turnId,
  );
  const lastReport = events.findLastIndex(
    (event) => turnIdOf(event) === holderTurnId && event.type === 'assistant_completed',
  );
  assert.ok(lastReport < holderEnded, "the holder's report comes before its terminal");
  assert.ok(holderEnded < userBound, "the holder ends before the user's turn is bound");
  assert.equal(
    firstIndex(eventsOfTurn(events, user.turnId), (event) => event.type === 'provider_turn_identity_resolved'),
    0,
    "the user's turn publishes nothing before its identity",
  );
}

test('a prompt sent while a reserved continuation waits for the follow-up: the report stays on the continuation', async () => {
  const { sidecar } = rig;
  const root = await runTurn(sidecar, SESSION, 'launch-reserved: start the job');
  assert.equal(stopReasonOf(root.terminal), 'end_turn', 'precondition: the launching turn ended before the job');
  const reserved = await sidecar.waitForEvent(isSyntheticStart, {
    fromIndex: root.from,
    timeoutMs: 30_000,
    description: "the continuation reserved for the job's notification",
  });
  const holderTurnId = turnIdOf(reserved) ?? '';
  const sentAt = sidecar.events.length - root.from;
  const user = await execQuestion('reserved');
  await waitForTerminal(sidecar, user.turnId, 'the user turn sent while the continuation was reserved');
  const events = sidecar.events.slice(root.from);
  assert.deepEqual(
    eventsOfTurn(events.slice(0, sentAt), holderTurnId).filter((event) => TURN_OUTPUT_EVENT_TYPES.includes(event.type)),
    [],
    'precondition: the follow-up had published nothing when the prompt was sent',
  );
  assertFollowUpThenUserTurn(events, holderTurnId, REPORT.reserved, user, 'reserved');
  assert.deepEqual(
    events.filter(isSyntheticStart).map(turnIdOf),
    [holderTurnId],
    'one continuation turn; none is reserved again after the user turn',
  );
});

test('a prompt sent while the follow-up streams: the rest of the report stays on the continuation', async () => {
  const { sidecar } = rig;
  const root = await runTurn(sidecar, SESSION, 'launch-streaming: start the job');
  const delta = await sidecar.waitForEvent(
    (event) => event.type === 'assistant_delta' && event.payload.turnId.startsWith('synthetic-'),
    { fromIndex: root.from, timeoutMs: 30_000, description: "the follow-up's first streamed text" },
  );
  const holderTurnId = turnIdOf(delta) ?? '';
  const user = await execQuestion('streaming');
  await waitForTerminal(sidecar, user.turnId, 'the user turn sent while the follow-up streamed');
  const events = sidecar.events.slice(root.from);
  assertFollowUpThenUserTurn(events, holderTurnId, REPORT.streaming, user, 'streaming');
  assert.equal(
    assistantTextOf(events, holderTurnId),
    REPORT.streaming,
    'the whole report, also what streamed after the prompt was sent',
  );
  assert.deepEqual(events.filter(isSyntheticStart).map(turnIdOf), [holderTurnId]);
});

test("an Agent task's report, with a prompt sent when its notification came, stays on the continuation", async () => {
  const { sidecar } = rig;
  const root = await runTurn(sidecar, SESSION, 'launch-agent: delegate the job');
  assert.equal(stopReasonOf(root.terminal), 'end_turn', 'precondition: the launching turn ended before the agent');
  const reserved = await sidecar.waitForEvent(isSyntheticStart, {
    fromIndex: root.from,
    timeoutMs: 30_000,
    description: "the continuation reserved for the agent's notification",
  });
  const holderTurnId = turnIdOf(reserved) ?? '';
  const user = await execQuestion('agent');
  await waitForTerminal(sidecar, user.turnId, "the user turn sent when the agent's notification came");
  const events = sidecar.events.slice(root.from);
  assert.ok(
    events.some((event) => event.type === 'background_tasks_changed' && event.payload.delegatedTasksKnownCount === 1),
    'precondition: the job was a delegated agent task',
  );
  assertFollowUpThenUserTurn(events, holderTurnId, REPORT.agent, user, 'agent');
  assert.deepEqual(events.filter(isSyntheticStart).map(turnIdOf), [holderTurnId]);
});

test('a prompt sent while the launching turn is retained for its follow-up: the report stays on that turn', async () => {
  const { sidecar } = rig;
  const from = sidecar.events.length;
  const root = { turnId: `root-retained-${randomUUID()}` };
  await sidecar.request('exec', { agentSessionId: SESSION, turnId: root.turnId, prompt: 'launch-retained: go' });
  // The root's own result: the job ended during the turn, so the turn is retained for the follow-up.
  await sidecar.waitForEvent(
    (event) =>
      event.type === 'sdk_lifecycle_observed' &&
      event.payload.sdkMessageType === 'result' &&
      event.payload.sdkMessageOrigin === undefined &&
      event.payload.activeTurnIdBefore === root.turnId,
    { fromIndex: from, timeoutMs: 30_000, description: "the launching turn's own result" },
  );
  const user = await execQuestion('retained');
  await waitForTerminal(sidecar, user.turnId, 'the user turn sent while the launching turn was retained');
  const events = sidecar.events.slice(from);
  assert.match(assistantTextOf(events, root.turnId), /RETAINED-ANSWER/, "the launching turn's own answer");
  assertFollowUpThenUserTurn(events, root.turnId, REPORT.retained, user, 'retained');
  assert.deepEqual(events.filter(isSyntheticStart), [], 'the retained turn needed no continuation turn');
});

test('a cancel of the prompt sent while the follow-up streams withdraws it: the report completes, each turn ends once', async () => {
  const { sidecar, mock } = rig;
  const root = await runTurn(sidecar, SESSION, 'launch-canceled: start the job');
  const delta = await sidecar.waitForEvent(
    (event) => event.type === 'assistant_delta' && event.payload.turnId.startsWith('synthetic-'),
    { fromIndex: root.from, timeoutMs: 30_000, description: "the follow-up's first streamed text" },
  );
  const holderTurnId = turnIdOf(delta) ?? '';
  const claude = youngestChild(sidecar.pid, 'claude');
  assert.ok(claude, 'the Claude Code child of the sidecar');
  const user = await execQuestion('canceled');
  const answer = await sidecar.request('cancel', {
    agentSessionId: SESSION,
    turnId: user.turnId,
    interruptTimeoutMs: 5_000,
    drainTimeoutMs: 5_000,
  });
  const answeredAt = sidecar.events.length;
  assert.deepEqual(answer, {
    canceled: true,
    disposition: 'pre_accept',
    turnId: user.turnId,
    providerTurnId: '',
    dispatchPhase: 'dispatched',
    queryRetired: false,
  });
  const userEvents = eventsOfTurn(sidecar.events.slice(root.from, answeredAt), user.turnId);
  assert.deepEqual(
    userEvents.map((event) => event.type),
    ['turn_canceled'],
    'the canceled turn ends once, before the answer, and publishes nothing else',
  );

  const holderTerminal = await waitForTerminal(sidecar, holderTurnId, 'the continuation of the job', 30_000);
  const events = sidecar.events.slice(root.from);
  assert.equal(assistantTextOf(events, holderTurnId), REPORT.canceled, 'the whole report reached the host');
  assert.equal(holderTerminal.type, 'turn_completed');
  assert.equal(stopReasonOf(holderTerminal), 'background_agent_idle', 'the follow-up ran to idle, untouched');
  assert.deepEqual(
    eventsOfTurn(events, user.turnId).map((event) => event.type),
    ['turn_canceled'],
  );
  assert.equal(youngestChild(sidecar.pid, 'claude'), claude, 'the same Claude Code process: nothing was retired');
  assert.ok(
    !mock.messageRequests().some((request) => JSON.stringify(request.body).includes('question-canceled')),
    'the withdrawn prompt never reached the model',
  );
});

test('no turn is left unsettled and every event matches the protocol', async () => {
  const { sidecar, mock } = rig;
  const next = await runTurn(sidecar, SESSION, 'a plain question after the follow-ups');
  assert.equal(stopReasonOf(next.terminal), 'end_turn');
  assert.match(assistantTextOf(sidecar.events, next.turnId), /Plain answer to: a plain question/);
  assertEveryTurnEndedOnce(sidecar.events);
  assert.deepEqual(sidecar.protocolErrors, [], 'every event matches the protocol schemas');
  assert.deepEqual(mock.unmatched, [], 'mock-anthropic answered every model request');
});

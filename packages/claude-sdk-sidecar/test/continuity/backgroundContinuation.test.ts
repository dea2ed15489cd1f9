import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { MockRule } from '@outrigger/mock-anthropic';
import type { SidecarEvent } from '@outrigger/protocol';
import {
  assertEveryTurnEndedOnce,
  assistantTextOf,
  backgroundBash,
  type ContinuityRig,
  eventsOfTurn,
  onlyTerminalOf,
  runTurn,
  startBypassSession,
  startContinuityRig,
  turnIdOf,
  waitForTerminal,
} from './continuityHarness.ts';

/*
 * Background Bash tasks through the real sidecar process, the real Claude Code binary and mock-anthropic.
 * One sidecar and one session serve every case in order, so one Claude Code process runs at a time.
 * A background job's completion makes Claude Code start a follow-up model request on its own; whichever
 * turn the sidecar gives that follow-up (the retained root turn or a synthetic continuation turn), every
 * turn must end exactly once and the follow-up output must land on one turn only.
 */

const SESSION = 'continuity-background';
const LATE_FOLLOW_UP = 'FOLLOWUP-LATE the late job has finished.';
const MID_FOLLOW_UP = 'FOLLOWUP-MID the quick job has finished.';
const MID_ANSWER = 'MIDTURN-ANSWER streaming slowly while the quick job runs to its end.';
const NEXT_FOLLOW_UP = 'FOLLOWUP-NEXT the job of the earlier turn has finished.';
const NEXT_ANSWER = 'NEXT-ANSWER the next question, answered while the earlier job ends.';

const rules: MockRule[] = [
  (request) => {
    const text = request.lastUserText;
    if (text.includes('bg-after-root')) {
      if (request.taskNotification !== undefined) return { content: [{ type: 'text', text: LATE_FOLLOW_UP }] };
      if (request.toolResults.length > 0) return { content: [{ type: 'text', text: 'Launched the late job.' }] };
      return { content: [backgroundBash(1.5, 'late job')] };
    }
    if (text.includes('bg-mid-turn')) {
      if (request.taskNotification !== undefined) return { content: [{ type: 'text', text: MID_FOLLOW_UP }] };
      // The answer to the launch streams for about 1.5 s, so the 0.2 s job ends while the root turn runs.
      if (request.toolResults.length > 0) {
        return { content: [{ type: 'text', text: MID_ANSWER, chunkSize: 2, chunkDelayMs: 45 }] };
      }
      return { content: [backgroundBash(0.2, 'quick job')] };
    }
    // The job's notification comes while (or after) the next question runs, so it is told apart by the job.
    if (request.taskNotification?.includes('earlier job')) return { content: [{ type: 'text', text: NEXT_FOLLOW_UP }] };
    if (text.includes('bg-launch-then-ask')) {
      if (request.toolResults.length > 0) return { content: [{ type: 'text', text: 'Launched the job.' }] };
      return { content: [backgroundBash(1.5, 'earlier job')] };
    }
    if (text.includes('bg-next-question')) {
      // Streams for about 3 s, so the earlier turn's job ends while this turn runs.
      return { content: [{ type: 'text', text: NEXT_ANSWER, chunkSize: 2, chunkDelayMs: 90 }] };
    }
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

interface Continuation {
  rootTurnId: string;
  /** The turn that carried the follow-up answer: the root turn itself, or a synthetic one. */
  holderTurnId: string;
  /** Events from the root exec up to the holder's terminal. */
  events: SidecarEvent[];
}

/** Runs a turn that launches a background job and waits until its follow-up answer's turn has ended. */
async function runBackgroundTurn(prompt: string, followUp: string): Promise<Continuation> {
  const { sidecar } = rig;
  const root = await runTurn(sidecar, SESSION, prompt);
  const answer = await sidecar.waitForEvent(
    (event) => event.type === 'assistant_completed' && event.payload.content.includes(followUp),
    {
      fromIndex: root.from,
      timeoutMs: 30_000,
      description: `the follow-up answer to the background job's notification ("${followUp}")`,
    },
  );
  const holderTurnId = turnIdOf(answer);
  assert.ok(holderTurnId, 'the follow-up answer belongs to a turn');
  await waitForTerminal(sidecar, holderTurnId, 'the turn holding the follow-up answer', 30_000);
  return { rootTurnId: root.turnId, holderTurnId, events: sidecar.events.slice(root.from) };
}

/** One terminal per turn, and the follow-up either retained on the root turn or on one synthetic turn. */
function assertSingleContinuation({ rootTurnId, holderTurnId, events }: Continuation, followUp: string): void {
  const rootTerminal = onlyTerminalOf(events, rootTurnId);
  const syntheticStarts = events.filter((event) => event.type === 'turn_started' && event.payload.synthetic === true);
  if (holderTurnId === rootTurnId) {
    assert.equal(rootTerminal.type, 'turn_completed', 'a retained root turn completes');
    assert.equal(
      (rootTerminal.payload as { stopReason?: string }).stopReason,
      'background_agent_idle',
      'a retained root turn ends at provider idle with stopReason background_agent_idle',
    );
    assert.deepEqual(syntheticStarts, [], 'a retained root turn needs no synthetic turn');
  } else {
    assert.equal(rootTerminal.type, 'turn_completed', 'the root turn completed before the follow-up');
    assert.equal((rootTerminal.payload as { stopReason?: string }).stopReason, 'end_turn');
    assert.deepEqual(
      syntheticStarts.map((event) => turnIdOf(event)),
      [holderTurnId],
      'exactly one synthetic turn_started, for the turn that holds the follow-up',
    );
    const holderEvents = eventsOfTurn(events, holderTurnId);
    assert.equal(holderEvents[0]?.type, 'turn_started', 'the synthetic turn is announced before its output');
    const holderTerminal = onlyTerminalOf(events, holderTurnId);
    assert.equal(holderTerminal.type, 'turn_completed');
    assert.equal(
      (holderTerminal.payload as { stopReason?: string }).stopReason,
      'background_agent_idle',
      'a task-notification result never settles; provider idle ends the synthetic turn',
    );
  }
  const carriers = new Set(
    events
      .filter((event) => event.type === 'assistant_completed' && event.payload.content.includes(followUp))
      .map((event) => turnIdOf(event)),
  );
  assert.deepEqual([...carriers], [holderTurnId], 'the follow-up answer lands on exactly one turn');
}

/** The Bash launch of a turn completed (not failed) as a running background process. */
function assertBackgroundLaunchCompleted(events: readonly SidecarEvent[], turnId: string): void {
  const launch = eventsOfTurn(events, turnId).find(
    (event) => event.type === 'tool_started' && event.payload.toolName === 'Bash',
  );
  assert.ok(launch?.type === 'tool_started', 'the Bash launch was published as tool_started');
  const endings = events.filter(
    (event) =>
      (event.type === 'tool_completed' || event.type === 'tool_failed') &&
      event.payload.toolCallId === launch.payload.toolCallId,
  );
  const completed = endings.find((event) => event.type === 'tool_completed');
  assert.ok(
    completed?.type === 'tool_completed',
    `the launch tool call completed; got ${endings.map((e) => e.type).join(', ') || 'nothing'}`,
  );
  assert.deepEqual(
    endings.filter((event) => event.type === 'tool_failed'),
    [],
    'a background launch never fails',
  );
  const metadata = completed.payload.metadata as { backgroundProcess?: { status?: unknown } };
  assert.equal(
    metadata.backgroundProcess?.status,
    'running',
    `tool_completed carries metadata.backgroundProcess {status:'running'}; got ${JSON.stringify(metadata)}`,
  );
}

/** background_tasks_changed reports the running set as counts: one running job, then none. */
function assertBackgroundCounts(events: readonly SidecarEvent[]): SidecarEvent[] {
  const changes = events.filter((event) => event.type === 'background_tasks_changed');
  const running = changes.map((event) => (event.type === 'background_tasks_changed' ? event.payload.runningCount : -1));
  assert.ok(running.includes(1), `background_tasks_changed reported one running task; runningCount seen: [${running}]`);
  assert.equal(running.at(-1), 0, `the last background_tasks_changed reports none running; seen: [${running}]`);
  return changes;
}

test('a background job finishing after the root result continues on exactly one turn', async () => {
  const continuation = await runBackgroundTurn('bg-after-root: launch the late job', LATE_FOLLOW_UP);
  assertSingleContinuation(continuation, LATE_FOLLOW_UP);
  assertBackgroundLaunchCompleted(continuation.events, continuation.rootTurnId);
  assertBackgroundCounts(continuation.events);
  assert.match(assistantTextOf(continuation.events, continuation.rootTurnId), /Launched the late job\./);
});

test('a background job finishing mid-turn is followed up once, without a second settlement', async () => {
  const continuation = await runBackgroundTurn('bg-mid-turn: launch the quick job', MID_FOLLOW_UP);
  const { events, rootTurnId } = continuation;
  assertSingleContinuation(continuation, MID_FOLLOW_UP);
  assertBackgroundLaunchCompleted(events, rootTurnId);
  const changes = assertBackgroundCounts(events);
  const emptied = events.indexOf(changes.at(-1) as SidecarEvent);
  const rootAnswer = events.findIndex(
    (event) => event.type === 'assistant_completed' && event.payload.content.includes('MIDTURN-ANSWER'),
  );
  assert.ok(rootAnswer >= 0, 'the root answer streamed');
  assert.ok(emptied < rootAnswer, 'the job ended while the root answer was still streaming');
});

test("a user turn running while an earlier turn's job ends keeps its own result; the follow-up runs after it", async () => {
  const { sidecar } = rig;
  const launch = await runTurn(sidecar, SESSION, 'bg-launch-then-ask: launch the job');
  assert.equal((launch.terminal.payload as { stopReason?: string }).stopReason, 'end_turn');
  const next = await runTurn(sidecar, SESSION, 'bg-next-question: meanwhile, a question');
  const answer = await sidecar.waitForEvent(
    (event) => event.type === 'assistant_completed' && event.payload.content.includes(NEXT_FOLLOW_UP),
    { fromIndex: launch.from, timeoutMs: 30_000, description: "the follow-up answer to the earlier turn's job" },
  );
  const holderTurnId = turnIdOf(answer);
  assert.ok(holderTurnId, 'the follow-up answer belongs to a turn');
  await waitForTerminal(sidecar, holderTurnId, 'the turn holding the follow-up answer', 30_000);
  const events = sidecar.events.slice(launch.from);

  const notified = events.findIndex(
    (event) => event.type === 'sdk_lifecycle_observed' && event.payload.sdkMessageSubtype === 'task_notification',
  );
  const nextEnded = events.indexOf(next.terminal);
  assert.ok(notified >= 0 && notified < nextEnded, 'precondition: the job ended while the next turn ran');
  assert.equal(next.terminal.type, 'turn_completed');
  assert.equal(
    (next.terminal.payload as { stopReason?: string }).stopReason,
    'end_turn',
    'the user turn ends with its own result, not at provider idle on behalf of the earlier job',
  );
  assert.match(assistantTextOf(events, next.turnId), /NEXT-ANSWER/);
  assert.doesNotMatch(
    assistantTextOf(events, next.turnId),
    /FOLLOWUP/,
    'the follow-up is not published on the user turn',
  );
  assert.notEqual(holderTurnId, next.turnId);
  assert.notEqual(holderTurnId, launch.turnId);
  const started = events.find((event) => event.type === 'turn_started' && turnIdOf(event) === holderTurnId);
  assert.ok(started, 'the follow-up runs on a synthetic turn announced with turn_started');
  assert.ok(events.indexOf(started) > nextEnded, 'the synthetic turn starts after the user turn ended');
  const holderTerminal = onlyTerminalOf(events, holderTurnId);
  assert.equal((holderTerminal.payload as { stopReason?: string }).stopReason, 'background_agent_idle');
});

test('no turn is left unsettled: the next exec completes normally and every turn ended once', async () => {
  const { sidecar, mock } = rig;
  const next = await runTurn(sidecar, SESSION, 'a plain question after the background work');
  assert.equal(next.terminal.type, 'turn_completed');
  assert.equal((next.terminal.payload as { stopReason?: string }).stopReason, 'end_turn');
  assert.match(assistantTextOf(sidecar.events, next.turnId), /Plain answer to: a plain question/);
  assert.doesNotMatch(assistantTextOf(sidecar.events, next.turnId), /FOLLOWUP/);

  assertEveryTurnEndedOnce(sidecar.events);
  assert.deepEqual(sidecar.protocolErrors, [], 'every event matches the protocol schemas');
  assert.deepEqual(mock.unmatched, [], 'mock-anthropic answered every model request');
});

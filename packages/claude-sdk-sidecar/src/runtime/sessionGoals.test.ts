import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { type EmitEvent, type ExecPayload, type GoalCommand, goalCommandOf } from '@outrigger/protocol';
import { sessionTranscriptPath } from '../goals/goalTranscript.ts';
import { execPayload } from '../testing/sessionRuntimeHarness.ts';
import { SessionGoals } from './sessionGoals.ts';
import type { RuntimeTurn } from './turnLifecycle.ts';

function rig(options: { restored?: boolean } = {}) {
  const events: { type: string; payload: Record<string, unknown> }[] = [];
  const emit: EmitEvent = (type, payload) => events.push({ type, payload: payload as Record<string, unknown> });
  const dispatched: string[] = [];
  let active: RuntimeTurn | undefined;
  const goals = new SessionGoals({
    emit,
    dispatch: (payload: ExecPayload, command: GoalCommand) => dispatched.push(`${payload.turnId}:${command.action}`),
    activeTurn: () => active,
    restored: options.restored ?? false,
    liveChild: () => undefined,
  });
  return {
    goals,
    events,
    dispatched,
    setActive: (turn: RuntimeTurn | undefined) => {
      active = turn;
    },
  };
}

function goalExec(turnId: string, action: 'set' | 'clear', revision: number) {
  const payload = execPayload(turnId, {
    goalAction: action,
    goalOperationId: `op-${revision}`,
    goalRevision: revision,
    goalRepairEpoch: 0,
    ...(action === 'set' ? { goalCondition: 'tests pass' } : {}),
  });
  const command = goalCommandOf(payload);
  assert.ok(command, 'precondition: the payload carries a valid Goal command');
  return { payload, command };
}

const turn = (turnId: string, providerTurnId?: string): RuntimeTurn =>
  ({ turnId, ...(providerTurnId ? { providerTurnId } : {}) }) as RuntimeTurn;

test('ordinary turns read no transcript until Goal evidence can exist', () => {
  assert.equal(rig().goals.drainEvidence(), undefined, 'a new session without Goals');
  assert.ok(rig({ restored: true }).goals.drainEvidence(), 'a restored session may hold verdicts');
  const r = rig();
  r.goals.observe({ type: 'active_goal', value: { condition: 'ship it' } } as unknown as SDKMessage);
  assert.ok(r.goals.drainEvidence(), 'an active_goal message brings Goals into play');
});

test('Goal commands wait for their batch; a queued one can be withdrawn, and close hands back the rest', async () => {
  const r = rig();
  const first = goalExec('goal-1', 'set', 1);
  const second = goalExec('goal-2', 'set', 2);
  r.goals.enqueue(first.payload, first.command);
  r.goals.enqueue(second.payload, second.command);
  assert.ok(r.goals.has('goal-1'));
  assert.ok(r.goals.drainEvidence(), 'a Goal command brings Goals into play');
  assert.equal(r.goals.cancelQueued('goal-1'), true);
  assert.equal(r.goals.cancelQueued('goal-1'), false, 'withdrawn once');
  assert.deepEqual(
    r.events.map((event) => event.type),
    ['goal_command_canceled'],
  );
  assert.deepEqual(r.goals.close(), ['goal-2']);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(r.dispatched, [], 'nothing handed back at close is dispatched');
});

test('transcript verdicts are reported on the running turn, else on the last settled one', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'session-goals-'));
  try {
    const r = rig({ restored: true });
    const location = { configDir: dir, cwd: dir, sessionId: 'provider-1' };
    const path = sessionTranscriptPath(location);
    r.goals.follow(location);
    const verdict = (uuid: string, met: boolean) =>
      `${JSON.stringify({ type: 'attachment', uuid, attachment: { type: 'goal_status', met, condition: 'tests pass' } })}\n`;
    r.goals.turnSettled(turn('t1', 'provider-turn-1'));
    mkdirSync(dirname(path), { recursive: true });
    appendFileSync(path, verdict('row-1', false));
    await r.goals.drainEvidence();
    r.setActive(turn('t2'));
    appendFileSync(path, verdict('row-2', true));
    await r.goals.drainEvidence();
    assert.deepEqual(
      r.events.map((event) => `${event.type}:${event.payload.turnId}`),
      ['goal_observed:t1', 'goal_observed:t2'],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EmitEvent } from '@outrigger/protocol';
import { GoalProjection, type GoalTurn } from './goalProjection.ts';

function setup() {
  const events: Array<[string, unknown]> = [];
  const emit: EmitEvent = (type, payload) => events.push([type, payload]);
  return { projection: new GoalProjection(emit), events };
}

const activeGoal = (value: unknown) => ({ type: 'active_goal', value, uuid: 'u', session_id: 's' });
const goalStatus = (uuid: string, attachment: Record<string, unknown>) => ({
  type: 'attachment',
  uuid,
  attachment: { type: 'goal_status', ...attachment },
});

const ARM: GoalTurn = { turnId: 'turn-1', providerTurnId: 'p-1', action: 'set' };
const PLAIN: GoalTurn = { turnId: 'turn-2', providerTurnId: 'p-2' };

describe('GoalProjection', () => {
  it('reports an active_goal object as an active goal update', () => {
    const { projection, events } = setup();
    projection.observe(
      activeGoal({ condition: 'tests pass', iterations: 2, set_at: 1, tokens_at_start: 9, last_reason: 'one failing' }),
      ARM,
    );
    assert.deepEqual(events, [
      [
        'goal_observed',
        {
          turnId: 'turn-1',
          providerTurnId: 'p-1',
          action: 'set',
          source: 'active_goal',
          updateType: 'thread_goal_update',
          goal: { objective: 'tests pass', status: 'active', iterations: 2, reason: 'one failing' },
        },
      ],
    ]);
  });

  it('reads a null active_goal as cleared on a clear turn and as completed otherwise', () => {
    const cleared = setup();
    cleared.projection.observe(activeGoal({ condition: 'ship it', iterations: 0 }), ARM);
    cleared.projection.observe(activeGoal(null), { turnId: 'turn-3', action: 'clear' });
    assert.deepEqual(cleared.events[1], [
      'goal_observed',
      { turnId: 'turn-3', action: 'clear', source: 'active_goal', updateType: 'thread_goal_cleared' },
    ]);

    const completed = setup();
    completed.projection.observe(activeGoal({ condition: 'ship it', iterations: 3 }), ARM);
    completed.projection.observe({ type: 'active_goal', uuid: 'u2', session_id: 's' }, PLAIN);
    assert.deepEqual(completed.events[1], [
      'goal_observed',
      {
        turnId: 'turn-2',
        providerTurnId: 'p-2',
        source: 'active_goal',
        updateType: 'thread_goal_completed',
        goal: { objective: 'ship it', status: 'complete', iterations: 3 },
      },
    ]);
  });

  it('maps goal_status verdicts: met → complete, not met → active, impossible → blocked and ended', () => {
    const { projection, events } = setup();
    projection.observe(goalStatus('r1', { met: false, condition: 'green', reason: 'red still' }), PLAIN);
    projection.observe(
      goalStatus('r2', { met: true, condition: 'green', reason: 'done', iterations: 2, durationMs: 5, tokens: 40 }),
      PLAIN,
    );
    projection.observe(goalStatus('r3', { met: false, failed: true, condition: 'moon', reason: 'impossible' }), PLAIN);
    projection.observe(goalStatus('r4', { met: false, sentinel: true, condition: 'green' }), PLAIN);
    const observed = (updateType: string, goal: unknown) => [
      'goal_observed',
      { turnId: 'turn-2', providerTurnId: 'p-2', source: 'goal_status', updateType, goal },
    ];
    assert.deepEqual(events, [
      observed('thread_goal_update', { objective: 'green', status: 'active', reason: 'red still' }),
      observed('thread_goal_completed', {
        objective: 'green',
        status: 'complete',
        iterations: 2,
        reason: 'done',
        tokens: 40,
      }),
      observed('thread_goal_completed', { objective: 'moon', status: 'blocked', reason: 'impossible' }),
      observed('thread_goal_update', { objective: 'green', status: 'active', sentinel: true }),
    ]);
  });

  it('reports a goal_status row once when both the stream and the transcript tail carry it', () => {
    const { projection, events } = setup();
    projection.observe(goalStatus('r1', { met: true, condition: 'green' }), PLAIN);
    projection.observe(goalStatus('r1', { met: true, condition: 'green' }), PLAIN);
    assert.equal(events.length, 1);
  });

  it('reports an active goal without a verdict as blocked at idle, once', () => {
    const { projection, events } = setup();
    projection.idle(PLAIN);
    projection.observe(activeGoal({ condition: 'green', iterations: 1 }), ARM);
    events.length = 0;
    projection.idle(PLAIN);
    projection.idle(PLAIN);
    assert.deepEqual(events, [
      [
        'goal_observed',
        {
          turnId: 'turn-2',
          providerTurnId: 'p-2',
          source: 'active_goal',
          updateType: 'thread_goal_update',
          goal: { objective: 'green', status: 'blocked', iterations: 1 },
        },
      ],
    ]);
    projection.observe(activeGoal({ condition: 'green', iterations: 2 }), PLAIN);
    projection.observe(goalStatus('r9', { met: true, condition: 'green' }), PLAIN);
    events.length = 0;
    projection.idle(PLAIN);
    assert.deepEqual(events, []);
  });

  it('keeps state but emits nothing without a turn, and ignores other messages', () => {
    const { projection, events } = setup();
    projection.observe(activeGoal({ condition: 'green', iterations: 0 }), undefined);
    projection.observe({ type: 'attachment', uuid: 'x', attachment: { type: 'queued_command' } }, PLAIN);
    projection.observe({ type: 'assistant', message: {} }, PLAIN);
    projection.observe(null, PLAIN);
    assert.deepEqual(events, []);
    projection.idle(PLAIN);
    assert.deepEqual(events[0]?.[1], {
      turnId: 'turn-2',
      providerTurnId: 'p-2',
      source: 'active_goal',
      updateType: 'thread_goal_update',
      goal: { objective: 'green', status: 'blocked', iterations: 0 },
    });
  });
});

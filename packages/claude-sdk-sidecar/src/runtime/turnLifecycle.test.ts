import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EmitEvent } from '@outrigger/protocol';
import { TurnLifecycle, type TurnLifecycleHooks } from './turnLifecycle.ts';

function lifecycle(hooks: TurnLifecycleHooks = {}) {
  const events: { type: string; payload: unknown }[] = [];
  const emit: EmitEvent = (type, payload) => {
    events.push({ type, payload });
  };
  return { events, turns: new TurnLifecycle(emit, hooks) };
}

const GOAL = { operationId: 'op', revision: 3, repairEpoch: 1, action: 'set' } as const;

test('identity binds once; a different id later is a conflict, the same id is already bound', () => {
  const { events, turns } = lifecycle();
  const turn = turns.enqueue({ turnId: 't1', correlationId: 'c1' });
  assert.equal(turns.bindIdentity(turn, 'p1'), 'bound');
  assert.equal(turns.bindIdentity(turn, 'p1'), 'already_bound');
  assert.equal(turns.bindIdentity(turn, 'p2'), 'conflict');
  assert.deepEqual(events, [
    { type: 'provider_turn_identity_resolved', payload: { turnId: 't1', providerTurnId: 'p1' } },
  ]);
});

test('checkpoints need a bound identity and are published once', () => {
  const { events, turns } = lifecycle();
  const turn = turns.enqueue({ turnId: 't1', correlationId: 'c1' });
  turns.checkpoint(turn, 'before-binding');
  turns.bindIdentity(turn, 'p1');
  turns.checkpoint(turn, 'm1');
  turns.checkpoint(turn, 'm1');
  assert.deepEqual(
    events.filter((event) => event.type === 'provider_turn_checkpoint').map((event) => event.payload),
    [{ turnId: 't1', providerTurnId: 'p1', providerCheckpointMessageId: 'm1' }],
  );
});

test('a turn settles exactly once and its terminal carries the bound id', () => {
  const { events, turns } = lifecycle();
  const turn = turns.enqueue({ turnId: 't1', correlationId: 'c1' });
  turns.bindIdentity(turn, 'p1');
  assert.equal(turns.settle(turn, { type: 'turn_completed', stopReason: 'end_turn' }), true);
  assert.equal(turns.settle(turn, { type: 'turn_failed', error: 'late' }), false);
  assert.deepEqual(events.at(-1), {
    type: 'turn_completed',
    payload: { turnId: 't1', providerTurnId: 'p1', stopReason: 'end_turn' },
  });
  assert.equal(turns.settledCount, 1);
  assert.equal(turns.idle, true);
});

test('exact cancellation: active, queued behind another, unresolved, mismatch and absent', () => {
  const { turns } = lifecycle();
  assert.deepEqual(turns.prepareExactCancellation('none'), { kind: 'absent' });
  const first = turns.enqueue({ turnId: 't1', correlationId: 'c1' });
  const second = turns.enqueue({ turnId: 't2', correlationId: 'c2' });
  turns.activate(first);
  assert.deepEqual(turns.prepareExactCancellation('other'), { kind: 'mismatch' });
  const queued = turns.prepareExactCancellation('t2');
  assert.equal(queued.kind, 'queued');
  assert.equal(queued.kind === 'queued' && queued.differentActiveTurn, first);
  assert.deepEqual(turns.prepareExactCancellation('t2'), { kind: 'unresolved', turn: second });
  turns.releaseCancellation(second);
  assert.equal(second.canceling, false);
  const active = turns.prepareExactCancellation('t1');
  assert.equal(active.kind, 'active');
  assert.equal(turns.commitCancellation(first), true);
  assert.equal(turns.commitCancellation(first), false);
});

test('a canceling turn is not an output target', () => {
  const { turns } = lifecycle();
  const turn = turns.enqueue({ turnId: 't1', correlationId: 'c1' });
  turn.generationId = 1;
  assert.equal(turns.outputTarget(), turn);
  turns.prepareExactCancellation('t1');
  assert.equal(turns.outputTarget(), undefined);
});

test('a Goal turn: provenance on its identity, goal_command_started then turn_started on activation, once', () => {
  const { events, turns } = lifecycle();
  const turn = turns.enqueue({ turnId: 't1', correlationId: 'c1', turnOrigin: 'goal_arm', goal: GOAL });
  turns.bindIdentity(turn, 'p1');
  turns.activate(turn);
  turns.activate(turn);
  const provenance = { sourceGoalOperationId: 'op', sourceGoalRevision: 3, sourceGoalRepairEpoch: 1 };
  assert.deepEqual(events, [
    {
      type: 'provider_turn_identity_resolved',
      payload: { turnId: 't1', providerTurnId: 'p1', turnOrigin: 'goal_arm', ...provenance },
    },
    {
      type: 'goal_command_started',
      payload: { turnId: 't1', providerTurnId: 'p1', operationId: 'op', revision: 3, repairEpoch: 1, action: 'set' },
    },
    { type: 'turn_started', payload: { turnId: 't1', turnOrigin: 'goal_arm', ...provenance } },
  ]);
});

test('a canceled Goal turn that never started ends with goal_command_canceled; a started one with turn_canceled', () => {
  const { events, turns } = lifecycle();
  const unstarted = turns.enqueue({ turnId: 't1', correlationId: 'c1', goal: GOAL });
  turns.prepareExactCancellation('t1');
  turns.commitCancellation(unstarted);
  const started = turns.enqueue({ turnId: 't2', correlationId: 'c2', goal: GOAL });
  turns.activate(started);
  turns.prepareExactCancellation('t2');
  turns.commitCancellation(started);
  assert.deepEqual(
    events.map((event) => [event.type, (event.payload as { turnId: string }).turnId]),
    [
      ['goal_command_canceled', 't1'],
      ['goal_command_started', 't2'],
      ['turn_canceled', 't2'],
    ],
  );
  assert.deepEqual(events[0]?.payload, {
    turnId: 't1',
    operationId: 'op',
    revision: 3,
    repairEpoch: 1,
    action: 'set',
    reason: 'cancel_requested',
  });
  assert.equal(turns.settledCount, 2);
});

test('beforeTerminal runs once per turn, right before its terminal event', () => {
  const seen: string[] = [];
  const { events, turns } = lifecycle({
    beforeTerminal: (turn, terminal) => seen.push(`${turn.turnId}:${terminal.type}:${events.length}`),
  });
  const turn = turns.enqueue({ turnId: 't1', correlationId: 'c1' });
  turns.settle(turn, { type: 'turn_failed', error: 'boom' });
  turns.settle(turn, { type: 'turn_failed', error: 'again' });
  assert.deepEqual(seen, ['t1:turn_failed:0']);
  assert.equal(events[0]?.type, 'turn_failed');
});

import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import type { EmitEvent, GoalCommand } from '@outrigger/protocol';
import { type GoalExec, GoalExecQueue } from './goalExecQueue.ts';

type Recorded = [string, unknown];

function setup() {
  const log: Recorded[] = [];
  const emit: EmitEvent = (type, payload) => log.push([type, payload]);
  const queue = new GoalExecQueue<GoalExec>({ emit, dispatch: (exec) => log.push(['dispatch', exec.turnId]) });
  return { queue, log };
}

const goal = (turnId: string, action: GoalCommand['action'], revision: number, operationId = `op-${turnId}`) => ({
  turnId,
  command: { operationId, revision, repairEpoch: 2, action },
});

describe('GoalExecQueue', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
  afterEach(() => mock.timers.reset());

  it('dispatches on the next macrotask, in arrival order, as one batch', () => {
    const { queue, log } = setup();
    queue.enqueue(goal('t1', 'set', 1));
    queue.enqueue(goal('t2', 'set', 2));
    assert.deepEqual(log, []);
    assert.equal(queue.has('t1'), true);
    mock.timers.tick(0);
    assert.deepEqual(log, [
      ['dispatch', 't1'],
      ['dispatch', 't2'],
    ]);
    assert.equal(queue.has('t1'), false);
    queue.enqueue(goal('t3', 'clear', 3));
    mock.timers.tick(0);
    assert.deepEqual(log.slice(2), [['dispatch', 't3']]);
  });

  it('lets a clear drop the queued sets of lower revision with goal_command_superseded', () => {
    const { queue, log } = setup();
    queue.enqueue(goal('t1', 'set', 4));
    queue.enqueue(goal('t2', 'set', 6));
    queue.enqueue(goal('t3', 'clear', 3));
    queue.enqueue(goal('t4', 'clear', 5));
    mock.timers.tick(0);
    assert.deepEqual(log, [
      [
        'goal_command_superseded',
        { turnId: 't1', operationId: 'op-t1', revision: 4, action: 'set', supersededByRevision: 5 },
      ],
      ['dispatch', 't2'],
      ['dispatch', 't3'],
      ['dispatch', 't4'],
    ]);
  });

  it('never supersedes a set that was already dispatched', () => {
    const { queue, log } = setup();
    queue.enqueue(goal('t1', 'set', 1));
    mock.timers.tick(0);
    queue.enqueue(goal('t2', 'clear', 2));
    mock.timers.tick(0);
    assert.deepEqual(log, [
      ['dispatch', 't1'],
      ['dispatch', 't2'],
    ]);
  });

  it('cancels a queued command exactly, with goal_command_canceled, and it is never dispatched', () => {
    const { queue, log } = setup();
    queue.enqueue(goal('t1', 'set', 3));
    queue.enqueue(goal('t2', 'clear', 2));
    assert.equal(queue.cancelExact('t2'), true);
    assert.equal(queue.cancelExact('t2'), false);
    assert.equal(queue.cancelExact('unknown'), false);
    mock.timers.tick(0);
    assert.equal(queue.cancelExact('t1'), false);
    assert.deepEqual(log, [
      [
        'goal_command_canceled',
        {
          turnId: 't2',
          operationId: 'op-t2',
          revision: 2,
          repairEpoch: 2,
          action: 'clear',
          reason: 'cancel_requested',
        },
      ],
      ['dispatch', 't1'],
    ]);
  });

  it('hands back undispatched commands on takeAll and dispatches nothing after', () => {
    const { queue, log } = setup();
    queue.enqueue(goal('t1', 'set', 1));
    assert.deepEqual(
      queue.takeAll().map((exec) => exec.turnId),
      ['t1'],
    );
    mock.timers.tick(0);
    assert.deepEqual(log, []);
  });
});

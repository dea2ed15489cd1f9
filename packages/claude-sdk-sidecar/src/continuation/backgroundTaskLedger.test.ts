import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BackgroundTaskLedger } from './backgroundTaskLedger.ts';

describe('BackgroundTaskLedger', () => {
  it('replaces the live set whole and says what it replaced', () => {
    const ledger = new BackgroundTaskLedger();
    assert.deepEqual(ledger.replaceLevel([]), { wasObserved: false, previousCount: 0, left: [] });
    assert.deepEqual(
      ledger.replaceLevel(
        [
          { taskId: 'a', taskType: 'local_bash' },
          { taskId: 'b', taskType: 'local_bash' },
        ],
        'turn-1',
      ),
      { wasObserved: true, previousCount: 0, left: [] },
    );
    assert.deepEqual(ledger.replaceLevel([{ taskId: 'b', taskType: 'local_bash' }], 'turn-2'), {
      wasObserved: true,
      previousCount: 2,
      left: ['a'],
    });
    assert.equal(ledger.ownerOf('b'), 'turn-1', 'a task belongs to the turn running when it was first seen');
    ledger.started('c', 'local_bash', 'toolu_c', 'turn-3');
    assert.equal(ledger.ownerOf('c'), 'turn-3');
    assert.equal(ledger.ownerOf('unknown'), undefined);
    assert.equal(ledger.liveCount, 1);
    assert.equal(ledger.counts().backgroundTasksNoLongerLiveCount, 1);
  });

  it('reports when the last running delegated task ends, once, and ignores shell tasks', () => {
    const ledger = new BackgroundTaskLedger();
    ledger.started('agent-1', 'local_agent');
    ledger.started('agent-2', 'local_agent');
    ledger.started('shell', 'local_bash');
    assert.equal(ledger.delegatedRunningCount, 2);
    assert.equal(ledger.ended('shell', 'completed'), false);
    assert.equal(ledger.ended('agent-1', 'completed'), false);
    assert.equal(ledger.ended('agent-2', 'killed'), true);
    assert.equal(ledger.ended('agent-2', 'completed'), false);
    const counts = ledger.counts();
    assert.equal(counts.delegatedTasksKnownCount, 2);
    assert.equal(counts.delegatedTasksCompletedCount, 1);
    assert.equal(counts.delegatedTasksStoppedCount, 1);
    assert.equal(counts.delegatedTasksRunningCount, 0);
  });

  it('does not count a delegated task as running when its end was seen before it was known', () => {
    const ledger = new BackgroundTaskLedger();
    ledger.ended('agent-1', 'completed');
    ledger.replaceLevel([{ taskId: 'agent-1', taskType: 'local_agent' }]);
    assert.equal(ledger.delegatedRunningCount, 0);
    assert.equal(ledger.counts().backgroundTasksRunningCount, 0);
  });

  it('a task runs while live or a started delegated task, until its terminal edge; tool calls map to their task', () => {
    const ledger = new BackgroundTaskLedger();
    ledger.replaceLevel([{ taskId: 'bash-1', taskType: 'local_bash' }]);
    ledger.started('bash-1', 'local_bash', 'toolu_bash');
    ledger.started('agent-1', 'local_agent', 'toolu_agent');
    assert.equal(ledger.isRunning('bash-1'), true);
    assert.equal(ledger.isRunning('agent-1'), true, 'a delegated task runs from its task_started');
    assert.equal(ledger.isRunning('unknown'), false);
    assert.equal(ledger.taskOfToolCall('toolu_agent'), 'agent-1');
    assert.equal(ledger.taskOfToolCall('toolu_other'), undefined);
    ledger.ended('bash-1', 'completed');
    ledger.ended('agent-1', 'stopped');
    assert.equal(ledger.isRunning('bash-1'), false);
    assert.equal(ledger.isRunning('agent-1'), false);
  });
});

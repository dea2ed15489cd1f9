import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BackgroundTaskLedger } from './backgroundTaskLedger.ts';

describe('BackgroundTaskLedger', () => {
  it('replaces the live set whole and says what it replaced', () => {
    const ledger = new BackgroundTaskLedger();
    assert.deepEqual(ledger.replaceLevel([]), { wasObserved: false, previousCount: 0 });
    assert.deepEqual(
      ledger.replaceLevel([
        { taskId: 'a', taskType: 'local_bash' },
        { taskId: 'b', taskType: 'local_bash' },
      ]),
      { wasObserved: true, previousCount: 0 },
    );
    assert.deepEqual(ledger.replaceLevel([{ taskId: 'b', taskType: 'local_bash' }]), {
      wasObserved: true,
      previousCount: 2,
    });
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
});

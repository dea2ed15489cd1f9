import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Compaction } from './compaction.ts';
import { recordEvents } from './fixtures/sdkFixtures.ts';

test('compacting status, boundary and success result publish start and completion once', () => {
  const { events, emit } = recordEvents();
  const compaction = new Compaction(emit);
  compaction.status('compacting', undefined, undefined, 't1');
  compaction.status('compacting', undefined, undefined, 't1');
  compaction.boundary('t1');
  compaction.status(null, 'success', undefined, 't1');
  assert.deepEqual(events, [
    { type: 'compact_started', payload: { turnId: 't1', content: 'Compacting...' } },
    { type: 'compact_completed', payload: { turnId: 't1', content: 'Compacting completed.' } },
  ]);
});

test('a failure carries its reason; the next turn compacts afresh', () => {
  const { events, emit } = recordEvents();
  const compaction = new Compaction(emit);
  compaction.status(null, 'failed', 'Not enough messages', 't1');
  compaction.boundary('t2');
  assert.deepEqual(events, [
    { type: 'compact_started', payload: { turnId: 't1', content: 'Compacting...' } },
    {
      type: 'compact_failed',
      payload: { turnId: 't1', reason: 'Not enough messages', content: 'Compacting failed: Not enough messages' },
    },
    { type: 'compact_started', payload: { turnId: 't2', content: 'Compacting...' } },
    { type: 'compact_completed', payload: { turnId: 't2', content: 'Compacting completed.' } },
  ]);
});

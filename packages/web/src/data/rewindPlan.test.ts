import assert from 'node:assert/strict';
import { test } from 'node:test';
import { conversationBefore, rewindBlockedReason, userTurnsInOrder } from './rewindPlan.ts';
import { sessionReducer } from './sessionReducer.ts';
import { emptySessionState } from './sessionState.ts';
import { detail, snapshot, T0, turn } from './testing/fixtures.ts';

function viewOf(options: { hasOlder?: boolean; runningTurnId?: string | null; queued?: number } = {}) {
  return sessionReducer(emptySessionState('s1'), {
    type: 'snapshot',
    snapshot: snapshot({
      session: detail({ runningTurnId: options.runningTurnId ?? null }),
      queuedPrompts: Array.from({ length: options.queued ?? 0 }, (_, index) => ({
        turnId: `q${index}`,
        prompt: 'later',
        clientMessageId: null,
        imageCount: 0,
        createdAt: T0,
        paused: false,
      })),
      messages: {
        messages: [],
        hasMore: options.hasOlder ?? false,
        turns: [
          turn({ id: 't3', startedAt: T0 + 3000 }),
          turn({ id: 't1', startedAt: T0 + 1000 }),
          turn({ id: 'syn', kind: 'synthetic', startedAt: T0 + 1500 }),
          turn({ id: 't2', startedAt: T0 + 2000 }),
        ],
      },
    }),
  });
}

test('the conversation before a turn is a fork at the user turn before it, or a new session before the first', () => {
  const view = viewOf();
  assert.deepEqual(userTurnsInOrder(view), ['t1', 't2', 't3']);
  assert.deepEqual(conversationBefore(view, 't3'), { kind: 'fork', turnId: 't2' });
  assert.deepEqual(conversationBefore(view, 't2'), { kind: 'fork', turnId: 't1' }, 'a synthetic turn is not forked at');
  assert.deepEqual(conversationBefore(view, 't1'), { kind: 'new' });
  assert.equal(conversationBefore(view, 'unknown'), null);
  assert.equal(conversationBefore(viewOf({ hasOlder: true }), 't1'), null, 'the turn before may be in older rows');
});

test('rewinds wait while a turn runs or prompts are queued, and say so', () => {
  assert.equal(rewindBlockedReason(viewOf()), null);
  assert.match(rewindBlockedReason(viewOf({ runningTurnId: 't3' })) ?? '', /turn is running/);
  assert.match(rewindBlockedReason(viewOf({ queued: 2 })) ?? '', /queued/);
});

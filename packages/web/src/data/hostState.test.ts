import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HostEvent } from '@outrigger/host-api';
import { emptyHostState, hostReducer, inboxItems, sessionsNeedingYou, sortedSessions } from './hostState.ts';
import { interaction, summary, T0 } from './testing/fixtures.ts';

const lists = hostReducer(emptyHostState, {
  type: 'lists',
  sessions: [summary({ id: 'a', createdAt: T0 }), summary({ id: 'b', createdAt: T0 + 1 })],
  interactions: [interaction({ requestId: 'r1', session_id: 'a' })],
  lastSeq: 10,
});

const sessionEvent = (seq: number, id: string, status: 'idle' | 'running' | 'needs_input'): HostEvent => ({
  type: 'session',
  data: { seq, session: summary({ id, status }) },
});

test('lists load the sidebar and the inbox; newest session first', () => {
  assert.deepEqual(
    sortedSessions(lists).map((s) => s.id),
    ['b', 'a'],
  );
  assert.deepEqual(
    inboxItems(lists).map((i) => i.requestId),
    ['r1'],
  );
  assert.equal(sessionsNeedingYou(lists), 1);
});

test('session events upsert; events at or below the lists’ seq are already in them', () => {
  const stale = hostReducer(lists, { type: 'event', event: sessionEvent(9, 'a', 'running') });
  assert.equal(stale, lists);
  const fresh = hostReducer(lists, { type: 'event', event: sessionEvent(11, 'c', 'needs_input') });
  assert.equal(fresh.sessions.c?.status, 'needs_input');
  assert.equal(sessionsNeedingYou(fresh), 2);
});

test('an interaction resolved anywhere leaves the inbox, once', () => {
  const resolved: HostEvent = {
    type: 'permission_resolved',
    data: { seq: 11, session_id: 'a', turnId: 't1', requestId: 'r1', status: 'answered', resolution: 'answered' },
  };
  const after = hostReducer(lists, { type: 'event', event: resolved });
  assert.deepEqual(after.inbox, {});
  assert.equal(hostReducer(after, { type: 'event', event: resolved }), after);
  const request: HostEvent = {
    type: 'permission_request',
    data: { seq: 12, session_id: 'b', interaction: interaction({ requestId: 'r2', session_id: 'b' }) },
  };
  const asked = hostReducer(after, { type: 'event', event: request });
  assert.deepEqual(Object.keys(asked.inbox), ['r2']);
  assert.deepEqual(hostReducer(asked, { type: 'interactionClosed', requestId: 'r2' }).inbox, {});
});

test('closed sessions sort after open ones', () => {
  const state = hostReducer(lists, { type: 'sessionSaved', session: summary({ id: 'b', closed: true }) });
  assert.deepEqual(
    sortedSessions(state).map((s) => s.id),
    ['a', 'b'],
  );
});

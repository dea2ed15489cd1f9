import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionSummary } from '@outrigger/host-api';
import { finishedTurns, notificationAdvice } from './attentionEvents.ts';

const session = (id: string, fields: Partial<SessionSummary>): SessionSummary =>
  ({ id, title: `Session ${id}`, status: 'idle', closed: false, runningTurnId: null, ...fields }) as SessionSummary;

test('a turn that ended is found; one that waits for the person or was closed is not', () => {
  const before = {
    a: session('a', { status: 'running', runningTurnId: 't1' }),
    b: session('b', { status: 'running', runningTurnId: 't2' }),
    c: session('c', { status: 'running', runningTurnId: 't3' }),
    d: session('d', { status: 'running', runningTurnId: 't4' }),
    e: session('e', { status: 'running', runningTurnId: 't5' }),
    f: session('f', {}),
  };
  const after = {
    a: session('a', { status: 'idle' }),
    b: session('b', { status: 'failed' }),
    c: session('c', { status: 'needs_input' }),
    d: session('d', { status: 'idle', closed: true }),
    e: session('e', { status: 'running', runningTurnId: 't6' }),
    f: session('f', {}),
  };
  assert.deepEqual(finishedTurns(before, after), [
    { sessionId: 'a', title: 'Session a', failed: false },
    { sessionId: 'b', title: 'Session b', failed: true },
  ]);
  assert.deepEqual(finishedTurns({}, after), [], 'a session seen for the first time ended nothing');
});

test('the person is told why there are no notifications and how to allow them', () => {
  assert.equal(notificationAdvice('granted', true), null);
  assert.equal(notificationAdvice('default', false), null);
  assert.match(notificationAdvice('default', true) ?? '', /closed without allowing/);
  assert.match(notificationAdvice('denied', false) ?? '', /blocks notifications.*site settings.*Allow/);
  assert.match(notificationAdvice('insecure', false) ?? '', /https or on localhost/);
  assert.match(notificationAdvice('unsupported', false) ?? '', /tab title/);
});

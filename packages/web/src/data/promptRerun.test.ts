import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CreateSessionBody, PostTurnBody } from '@outrigger/host-api';
import { promptPartsOf, rerunInNewSession, rerunStart, rerunTitle, retryableTurnId } from './promptRerun.ts';
import { sessionReducer } from './sessionReducer.ts';
import { emptySessionState } from './sessionState.ts';
import { detail, snapshot, summary, T0, turn, userRow } from './testing/fixtures.ts';

function viewOf(
  options: { running?: string; lastStatus?: 'completed' | 'failed' | 'running'; hasOlder?: boolean } = {},
) {
  return sessionReducer(emptySessionState('s1'), {
    type: 'snapshot',
    snapshot: snapshot({
      session: detail({ runningTurnId: options.running ?? null }),
      messages: {
        messages: [
          userRow('r1', 'first', { turnId: 't1' }),
          userRow('r2', 'second', { turnId: 't2' }),
          userRow('r3', 'change of mind', { turnId: 't2', steer: true }),
        ],
        hasMore: options.hasOlder ?? false,
        turns: [
          turn({ id: 't1', startedAt: T0 + 1000 }),
          turn({ id: 't2', startedAt: T0 + 2000, status: options.lastStatus ?? 'completed' }),
        ],
      },
    }),
  });
}

test('a prompt re-runs from just before its turn: a fork at the turn before, a new session before the first', () => {
  const view = viewOf();
  assert.deepEqual(rerunStart(view, view.rows.r2!), { kind: 'fork', turnId: 't1' });
  assert.deepEqual(rerunStart(view, view.rows.r1!), { kind: 'new' });
  assert.equal(rerunStart(view, view.rows.r3!), null, 'a steer is not a turn of its own');
  assert.equal(rerunStart(viewOf({ hasOlder: true }), view.rows.r1!), null, 'the turn before may not be loaded');
});

test('Retry is offered for the last user turn once it ended, not while one runs', () => {
  assert.equal(retryableTurnId(viewOf()), 't2');
  assert.equal(retryableTurnId(viewOf({ lastStatus: 'failed' })), 't2', 'a failed turn is the one most retried');
  assert.equal(retryableTurnId(viewOf({ lastStatus: 'running', running: 't2' })), null);
});

test('the parts of a sent prompt: its text first, then its other blocks in order', () => {
  const row = userRow('r', 'look', {
    content: [
      { type: 'text', text: 'look' },
      { type: 'image', attachmentId: 'a1', mediaType: 'image/png', bytes: 3 },
      { type: 'text', text: 'and this' },
    ],
  });
  assert.deepEqual(promptPartsOf(row), {
    prompt: 'look',
    extra: [
      { type: 'image', attachmentId: 'a1', mediaType: 'image/png' },
      { type: 'text', text: 'and this' },
    ],
  });
});

function services(options: { attachmentFails?: boolean } = {}) {
  const calls: string[] = [];
  const sent: { sessionId: string; body: Omit<PostTurnBody, 'clientMessageId'> }[] = [];
  const created: CreateSessionBody[] = [];
  return {
    calls,
    sent,
    created,
    services: {
      fork: async (sessionId: string, turnId: string, title?: string) => {
        calls.push(`fork ${sessionId} at ${turnId}: ${title}`);
        return summary({ id: 'fork-1' });
      },
      createSession: async (body: CreateSessionBody) => {
        created.push(body);
        return summary({ id: 'new-1' });
      },
      send: (sessionId: string, body: Omit<PostTurnBody, 'clientMessageId'>) => {
        sent.push({ sessionId, body });
      },
      attachment: async (attachmentId: string) => {
        if (options.attachmentFails) throw new Error('gone');
        return `base64-of-${attachmentId}`;
      },
    },
  };
}

test('a re-run forks, then sends the prompt (with its images read back) into the fork', async () => {
  const fake = services();
  const id = await rerunInNewSession(
    fake.services,
    detail({ id: 's1' }),
    { kind: 'fork', turnId: 't1' },
    { prompt: 'edited', extra: [{ type: 'image', attachmentId: 'a1', mediaType: 'image/png' }] },
    'Title (edited)',
  );
  assert.equal(id, 'fork-1');
  assert.deepEqual(fake.calls, ['fork s1 at t1: Title (edited)']);
  assert.deepEqual(fake.sent, [
    {
      sessionId: 'fork-1',
      body: {
        prompt: 'edited',
        content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'base64-of-a1' } }],
      },
    },
  ]);
});

test('before the first turn a new session with the same folder and settings takes the prompt', async () => {
  const fake = services();
  const session = detail({ id: 's1', cwd: '/work/x' });
  session.settings = { model: 'opus', permissionMode: 'acceptEdits', planMode: true, effort: 'high' };
  const id = await rerunInNewSession(fake.services, session, { kind: 'new' }, { prompt: 'again', extra: [] }, 'T');
  assert.equal(id, 'new-1');
  assert.deepEqual(fake.created, [
    { cwd: '/work/x', model: 'opus', permissionMode: 'acceptEdits', planMode: true, effort: 'high', title: 'T' },
  ]);
  assert.deepEqual(fake.sent, [{ sessionId: 'new-1', body: { prompt: 'again' } }]);
});

test('an image that cannot be read back fails the re-run before any session is made', async () => {
  const fake = services({ attachmentFails: true });
  await assert.rejects(
    rerunInNewSession(
      fake.services,
      detail(),
      { kind: 'fork', turnId: 't1' },
      { prompt: 'x', extra: [{ type: 'image', attachmentId: 'a1', mediaType: 'image/png' }] },
      'T',
    ),
    /gone/,
  );
  assert.deepEqual(fake.calls, []);
  assert.deepEqual(fake.sent, []);
});

test("a re-run of a re-run keeps one suffix: 'Title (edited) (retry)' is 'Title (retry)'", () => {
  assert.equal(rerunTitle('Title', 'edited'), 'Title (edited)');
  assert.equal(rerunTitle('Title (edited)', 'retry'), 'Title (retry)');
  assert.equal(rerunTitle('Title (fork) (retry)', 'edited'), 'Title (edited)');
  assert.equal(rerunTitle('Notes (v2)', 'retry'), 'Notes (v2) (retry)', 'a name of its own stays');
});

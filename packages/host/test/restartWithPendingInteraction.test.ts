import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { HostApiError } from '@outrigger/host-api';
import { caseScripts, text } from '../src/sessions/testing/scriptedModel.ts';
import { SqliteHostStore } from '../src/store/sqlite/sqliteHostStore.ts';
import { testInteraction } from '../src/store/testRecords.ts';
import { runTurnToDone } from './harness/sseReader.ts';
import { startTestHost, type TestHost } from './harness/testHost.ts';

/*
 * *A restart ends what ran*, for the case recovery can overlook: a session that a previous run left with a pending
 * interaction but no running turn, no queued prompt and no background work. Nothing live would end it, so
 * unless the restart supersedes it the session says needs_input for ever, with a question nobody can answer.
 */

const cases = caseScripts();
let testHost: TestHost;

before(async () => {
  testHost = await startTestHost({ rules: [cases.rule] });
});
after(async () => {
  await testHost?.close();
});

test('a restart supersedes a pending interaction no live turn holds, and the session is usable again', async () => {
  const { id: sessionId } = await testHost.client.call('createSession', {
    body: { cwd: testHost.cwd, title: 'stranded' },
  });
  const first = await runTurnToDone(
    testHost.client,
    sessionId,
    cases.prompt('before the crash', { prompt: text('Done before the crash.') }),
  );

  await testHost.restart(async () => {
    // What a crash between two writes could leave: the turn over, its question still open.
    const store = SqliteHostStore.open({ path: join(testHost.dataDir, 'host.db') });
    try {
      const session = (await store.getSession(sessionId))!;
      await store.commit({
        sessions: [{ ...session, status: 'needs_input', needsInputCount: 1 }],
        interactions: [testInteraction(sessionId, 'stranded-request', { turnId: first.turnId })],
      });
    } finally {
      await store.close();
    }
  });

  // The restart gave the host a new port, and so a new client.
  const { client } = testHost;
  const { session } = await client.call('getSession', { params: { id: sessionId } });
  assert.deepEqual([session.status, session.needsInputCount], ['idle', 0], 'the restart left nothing to answer');
  const { interactions } = await client.call('listSessionInteractions', { params: { id: sessionId }, query: {} });
  assert.deepEqual(
    interactions.map((item) => [item.requestId, item.status, item.resolution]),
    [['stranded-request', 'superseded', 'host_restarted']],
  );
  await assert.rejects(
    client.call('answerInteraction', {
      params: { id: sessionId, requestId: 'stranded-request' },
      body: { action: 'allow', optionId: 'allow', payload: {} },
    }),
    (error: unknown) => error instanceof HostApiError && error.code === 'gone',
    'a superseded question cannot be answered',
  );

  const next = await runTurnToDone(
    client,
    sessionId,
    cases.prompt('after the restart', { prompt: text('Answered after the restart.') }),
  );
  const done = next.frames.at(-1)?.data as { outcome: string };
  assert.equal(done.outcome, 'completed');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspectForkCheckpoints } from './inspectForkCheckpoints.ts';
import { assistantMessage, fakeSessionSdk, SESSION_ID, toolResultMessage, userMessage } from './transcriptFixtures.ts';

test('lists only root user uuids, oldest first', async () => {
  const sdk = fakeSessionSdk({
    [SESSION_ID]: [
      userMessage('u1', 'first'),
      assistantMessage('a1'),
      toolResultMessage('r1', 'toolu_1'),
      userMessage('n1', '<task-notification>x</task-notification>'),
      userMessage('u2', 'second'),
      assistantMessage('a2'),
      // A cancel's (or a guide's) interruption is part of the interrupted Turn, which no event names apart.
      userMessage('i2', [{ type: 'text', text: '[Request interrupted by user]' }]),
      userMessage('u3', 'third'),
    ],
  });
  assert.deepEqual(await inspectForkCheckpoints({ providerSessionId: SESSION_ID, cwd: '/work' }, sdk), {
    providerTurnIds: ['u1', 'u2', 'u3'],
  });
  assert.deepEqual(sdk.calls[0]?.options, { dir: '/work', includeSystemMessages: true });
});

test('an empty or repeated root uuid is an invalid identity', async () => {
  for (const roots of [[userMessage('', 'a')], [userMessage('u1', 'a'), userMessage('u1', 'b')]]) {
    await assert.rejects(
      inspectForkCheckpoints({ providerSessionId: SESSION_ID, cwd: '' }, fakeSessionSdk({ [SESSION_ID]: roots })),
      {
        message: 'Claude transcript contains an invalid root user identity',
      },
    );
  }
});

test('the provider session id is required', async () => {
  await assert.rejects(inspectForkCheckpoints({ providerSessionId: ' ', cwd: '' }, fakeSessionSdk({})), {
    message: 'provider session id is required',
  });
});

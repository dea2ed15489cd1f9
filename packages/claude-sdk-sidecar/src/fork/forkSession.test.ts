import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import type { ForkSessionPayload } from '@outrigger/protocol';
import { ForkSessionError, forkSession } from './forkSession.ts';
import {
  assistantMessage,
  fakeSessionSdk,
  SESSION_ID,
  systemMessage,
  toolResultMessage,
  userMessage,
} from './transcriptFixtures.ts';

const CHILD_ID = '22222222-2222-4222-8222-222222222222';

const source = [
  userMessage('u1', 'first'),
  assistantMessage('a1'),
  toolResultMessage('r1', 'toolu_1'),
  assistantMessage('a1b'),
  userMessage('u2', 'second'),
  assistantMessage('a2'),
];
/** Claude remaps every uuid in the child; a notification inside the Turn extends its checkpoint. */
const child = [
  userMessage('c-u1', 'first'),
  assistantMessage('c-a1'),
  userMessage('c-n1', '<task-notification>done</task-notification>'),
  systemMessage('c-s1'),
];

function payload(fields: Partial<ForkSessionPayload> = {}): ForkSessionPayload {
  return {
    providerSessionId: SESSION_ID,
    providerTurnId: 'u1',
    providerCheckpointMessageId: '',
    cwd: '/work',
    title: '',
    ...fields,
  };
}

async function forkError(promise: Promise<unknown>): Promise<ForkSessionError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ForkSessionError, `expected ForkSessionError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the fork to fail');
}

describe('forkSession', () => {
  test('without a persisted checkpoint, forks at the end of the selected Turn and binds the child', async () => {
    const sdk = fakeSessionSdk({ [SESSION_ID]: source, [CHILD_ID]: child }, () => CHILD_ID);
    const result = await forkSession(payload({ title: ' My fork ' }), sdk);
    const forkCall = sdk.calls.find((call) => call.method === 'forkSession');
    assert.deepEqual(forkCall, {
      method: 'forkSession',
      sessionId: SESSION_ID,
      options: { dir: '/work', upToMessageId: 'a1b', title: 'My fork' },
    });
    const targetTurnBindings = [{ providerTurnId: 'c-u1', checkpointMessageId: 'c-s1' }];
    const attested = JSON.stringify({
      sourceSessionId: SESSION_ID,
      childSessionId: CHILD_ID,
      checkpointId: 'a1b',
      targetTurnBindings,
      sourceProviderTurnId: 'u1',
      targetProviderTurnId: 'c-u1',
    });
    assert.deepEqual(result, {
      providerSessionId: CHILD_ID,
      targetProviderTurnBindings: targetTurnBindings,
      stateBindingMode: 'provider_owned',
      stateBindingReceipt: `claude-sdk-fork-v3:${createHash('sha256').update(attested).digest('hex')}`,
      deliveryDisposition: 'accepted',
    });
  });

  test('a persisted checkpoint skips the source read; no title means no title option', async () => {
    const sdk = fakeSessionSdk({ [CHILD_ID]: child }, () => CHILD_ID);
    await forkSession(payload({ providerTurnId: 'u2', providerCheckpointMessageId: 'a2', cwd: '' }), sdk);
    assert.deepEqual(
      sdk.calls.map((call) => [call.method, call.sessionId]),
      [
        ['forkSession', SESSION_ID],
        ['getSessionInfo', CHILD_ID],
        ['getSessionMessages', CHILD_ID],
      ],
    );
    assert.deepEqual(sdk.calls[0]?.options, { upToMessageId: 'a2' });
  });

  test('a fork of a fork with several Turns binds every child Turn; the receipt names the last', async () => {
    const grandchild = [
      userMessage('g1', 'a'),
      assistantMessage('ga1'),
      userMessage('g2', 'b'),
      assistantMessage('ga2'),
    ];
    const sdk = fakeSessionSdk({ [SESSION_ID]: source, [CHILD_ID]: grandchild }, () => CHILD_ID);
    const result = await forkSession(payload({ providerTurnId: 'u2' }), sdk);
    assert.deepEqual(result.targetProviderTurnBindings, [
      { providerTurnId: 'g1', checkpointMessageId: 'ga1' },
      { providerTurnId: 'g2', checkpointMessageId: 'ga2' },
    ]);
  });

  test('a persisted ephemeral checkpoint is recomputed from the source once', async () => {
    const attempts: (string | undefined)[] = [];
    const sdk = fakeSessionSdk({ [SESSION_ID]: source, [CHILD_ID]: child }, (sessionId, upTo) => {
      attempts.push(upTo);
      if (upTo === 'ephemeral') throw new Error(`Message ephemeral not found in session ${sessionId}`);
      return CHILD_ID;
    });
    const result = await forkSession(payload({ providerCheckpointMessageId: 'ephemeral' }), sdk);
    assert.deepEqual(attempts, ['ephemeral', 'a1b']);
    assert.equal(result.providerSessionId, CHILD_ID);
  });

  test('no second fork when the recomputed checkpoint is the same, or for any other fork error', async () => {
    const attempts: (string | undefined)[] = [];
    const sdk = fakeSessionSdk({ [SESSION_ID]: source }, (sessionId, upTo) => {
      attempts.push(upTo);
      throw new Error(`Message ${upTo} not found in session ${sessionId}`);
    });
    const same = await forkError(forkSession(payload({ providerCheckpointMessageId: 'a1b' }), sdk));
    assert.equal(
      same.message,
      `Claude SDK session fork failed at provider_fork: Message a1b not found in session ${SESSION_ID}`,
    );
    const derived = await forkError(forkSession(payload(), sdk));
    assert.equal(derived.stage, 'provider_fork');
    assert.deepEqual(attempts, ['a1b', 'a1b']);
  });

  test('source_lookup failures are not_started', async () => {
    const sdk = fakeSessionSdk({ [SESSION_ID]: source }, () => CHILD_ID);
    const cases: [Partial<ForkSessionPayload>, string][] = [
      [{ providerSessionId: '' }, 'provider session id is required'],
      [{ providerTurnId: ' ' }, 'provider turn id is required'],
      [{ providerTurnId: 'r1' }, 'selected provider turn is absent from Claude transcript'],
    ];
    for (const [fields, cause] of cases) {
      const error = await forkError(forkSession(payload(fields), sdk));
      assert.equal(error.message, `Claude SDK session fork failed at source_lookup: ${cause}`);
      assert.equal(error.stage, 'source_lookup');
      assert.equal(error.deliveryDisposition, 'not_started');
    }
    assert.equal(sdk.calls.filter((call) => call.method === 'forkSession').length, 0);
  });

  test('once the mutation started, every failure is unknown', async () => {
    const rejected = await forkError(
      forkSession(
        payload(),
        fakeSessionSdk({ [SESSION_ID]: source }, () => {
          throw new Error('disk full');
        }),
      ),
    );
    assert.deepEqual(
      [rejected.stage, rejected.deliveryDisposition, rejected.message],
      ['provider_fork', 'unknown', 'Claude SDK session fork failed at provider_fork: disk full'],
    );

    const cases: [string, Record<string, typeof child>, string][] = [
      ['not-a-uuid', {}, 'forked Claude session id is not a UUID'],
      [SESSION_ID, {}, 'forked Claude session id equals its source'],
      [CHILD_ID, {}, 'forked Claude session is not discoverable'],
      [
        CHILD_ID,
        { [CHILD_ID]: [systemMessage('c-s0'), assistantMessage('c-a0')] },
        'forked Claude transcript has no root turn bindings',
      ],
      [
        CHILD_ID,
        { [CHILD_ID]: [userMessage('c-u1', 'a'), userMessage('c-u1', 'b')] },
        'forked Claude transcript contains duplicate bindings',
      ],
    ];
    for (const [childId, transcripts, cause] of cases) {
      const error = await forkError(
        forkSession(
          payload(),
          fakeSessionSdk({ [SESSION_ID]: source, ...transcripts }, () => childId),
        ),
      );
      assert.equal(error.message, `Claude SDK session fork failed at child_verification: ${cause}`);
      assert.equal(error.deliveryDisposition, 'unknown');
    }
  });

  test('child info naming another session fails verification', async () => {
    const sdk = fakeSessionSdk({ [SESSION_ID]: source, [CHILD_ID]: child }, () => CHILD_ID);
    sdk.getSessionInfo = async () => ({ sessionId: SESSION_ID, summary: 'x', lastModified: 0 });
    const error = await forkError(forkSession(payload(), sdk));
    assert.equal(
      error.message,
      'Claude SDK session fork failed at child_verification: forked Claude session info names a different session',
    );
  });
});

import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { recoverTurnBinding } from './recoverTurnBinding.ts';
import { assistantMessage, fakeSessionSdk, SESSION_ID, userMessage } from './transcriptFixtures.ts';

const sdk = fakeSessionSdk({
  [SESSION_ID]: [
    userMessage('u1', 'hello'),
    assistantMessage('a1'),
    userMessage('u2', 'again'),
    assistantMessage('a2'),
  ],
});
const noProof = {
  providerSessionId: SESSION_ID,
  cwd: '/w',
  recoveryToken: '',
  legacyTextHmacKey: '',
  legacyTextHmacDigest: '',
};

test('recovers by opaque token with the input session id and the Turn checkpoint', async () => {
  assert.deepEqual(await recoverTurnBinding({ ...noProof, recoveryToken: 'u2' }, sdk), {
    providerSessionId: SESSION_ID,
    providerTurnId: 'u2',
    providerCheckpointMessageId: 'a2',
  });
});

test('recovers by legacy HMAC of the exact text when no token is given', async () => {
  const key = randomBytes(24);
  const proof = {
    legacyTextHmacKey: key.toString('base64url'),
    legacyTextHmacDigest: createHmac('sha256', key).update('hello').digest('base64url'),
  };
  assert.equal((await recoverTurnBinding({ ...noProof, ...proof }, sdk)).providerTurnId, 'u1');
});

test('no proof at all is absent; a missing session id is rejected', async () => {
  await assert.rejects(recoverTurnBinding(noProof, sdk), {
    message: 'Claude provider turn recovery proof is absent',
    reason: 'absent',
  });
  await assert.rejects(recoverTurnBinding({ ...noProof, providerSessionId: '' }, sdk), {
    message: 'provider session id is required',
  });
});

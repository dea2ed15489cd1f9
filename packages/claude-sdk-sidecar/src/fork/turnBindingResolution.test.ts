import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { afterEach, beforeEach, describe, test } from 'node:test';
import {
  assistantMessage,
  fakeSessionSdk,
  SESSION_ID,
  systemMessage,
  toolResultMessage,
  userMessage,
} from './transcriptFixtures.ts';
import { resolveTurnBinding, resolveTurnByCorrelationId, TurnBindingResolutionError } from './turnBindingResolution.ts';

const transcript = [
  userMessage('u1', 'legacy text'),
  assistantMessage('a1'),
  toolResultMessage('r1', 'toolu_1'),
  assistantMessage('a1b'),
  userMessage('u2', [
    { type: 'text', text: 'with' },
    { type: 'image', source: {} },
  ]),
  assistantMessage('a2'),
  userMessage('u3', [
    { type: 'text', text: 'legacy' },
    { type: 'text', text: 'blocks' },
  ]),
  systemMessage('s3'),
];

function hmacProof(text: string, key = randomBytes(32)) {
  return {
    recoveryToken: '',
    legacyTextHmacKey: key.toString('base64url'),
    legacyTextHmacDigest: createHmac('sha256', key).update(text).digest('base64url'),
  };
}

describe('resolveTurnBinding', () => {
  test('a recovery token matches a root uuid exactly and yields its checkpoint', () => {
    assert.deepEqual(resolveTurnBinding(transcript, { recoveryToken: 'u1' }), {
      providerTurnId: 'u1',
      providerCheckpointMessageId: 'a1b',
    });
    assert.deepEqual(resolveTurnBinding(transcript, { recoveryToken: ' u3 ' }), {
      providerTurnId: 'u3',
      providerCheckpointMessageId: 's3',
    });
  });

  test('a token never matches non-root messages, and a token disables the legacy proof', () => {
    assert.throws(() => resolveTurnBinding(transcript, { recoveryToken: 'r1' }), { message: /is absent$/ });
    assert.throws(() => resolveTurnBinding(transcript, { ...hmacProof('legacy text'), recoveryToken: 'nope' }), {
      message: 'Claude provider turn recovery proof is absent',
    });
  });

  test('the legacy HMAC proof matches the exact pure text of a root', () => {
    assert.equal(resolveTurnBinding(transcript, hmacProof('legacy text')).providerTurnId, 'u1');
    assert.equal(resolveTurnBinding(transcript, hmacProof('legacy\n\nblocks')).providerTurnId, 'u3');
  });

  test('the legacy proof fails closed: near text, multimodal roots, wrong key, bad encoding, empty parts', () => {
    const absent = { name: 'TurnBindingResolutionError', message: 'Claude provider turn recovery proof is absent' };
    assert.throws(() => resolveTurnBinding(transcript, hmacProof('legacy text ')), absent);
    assert.throws(() => resolveTurnBinding(transcript, hmacProof('with')), absent);
    const proof = hmacProof('legacy text');
    assert.throws(
      () => resolveTurnBinding(transcript, { ...proof, legacyTextHmacKey: randomBytes(32).toString('base64url') }),
      absent,
    );
    assert.throws(() => resolveTurnBinding(transcript, { ...proof, legacyTextHmacDigest: '!!not base64!!' }), absent);
    assert.throws(
      () => resolveTurnBinding(transcript, { ...proof, legacyTextHmacDigest: proof.legacyTextHmacDigest.slice(0, 20) }),
      absent,
    );
    assert.throws(() => resolveTurnBinding(transcript, { ...proof, legacyTextHmacKey: '' }), absent);
  });

  test('absent and ambiguous errors carry counts only', () => {
    const twins = [
      userMessage('u1', 'same'),
      assistantMessage('a1'),
      userMessage('u2', 'same'),
      assistantMessage('a2'),
    ];
    let caught: unknown;
    try {
      resolveTurnBinding(twins, hmacProof('same'));
    } catch (error) {
      caught = error;
    }
    assert.ok(caught instanceof TurnBindingResolutionError);
    assert.equal(caught.message, 'Claude provider turn recovery proof is ambiguous');
    assert.equal(caught.reason, 'ambiguous');
    assert.deepEqual(caught.details, {
      transcriptMessageCount: 4,
      rootUserMessageCount: 2,
      matchingRootUserMessageCount: 2,
      latestRootUserMessageId: 'u2',
    });
    assert.throws(() => resolveTurnBinding([], { recoveryToken: 'x' }), {
      reason: 'absent',
      details: {
        transcriptMessageCount: 0,
        rootUserMessageCount: 0,
        matchingRootUserMessageCount: 0,
        latestRootUserMessageId: undefined,
      },
    });
  });

  test('a root without a uuid makes the bindings incomplete', () => {
    assert.throws(
      () => resolveTurnBinding([userMessage('', 'lost'), userMessage('u2', 'b')], { recoveryToken: 'u2' }),
      {
        message: 'Claude transcript contains incomplete root turn bindings',
      },
    );
  });
});

describe('resolveTurnByCorrelationId', () => {
  test('reads the session transcript (system messages included) and binds by the correlation uuid', async () => {
    const sdk = fakeSessionSdk({ [SESSION_ID]: transcript });
    const binding = await resolveTurnByCorrelationId(
      { providerSessionId: SESSION_ID, cwd: '/work', correlationId: 'u3' },
      sdk,
    );
    assert.deepEqual(binding, { providerTurnId: 'u3', providerCheckpointMessageId: 's3' });
    assert.deepEqual(sdk.calls, [
      { method: 'getSessionMessages', sessionId: SESSION_ID, options: { dir: '/work', includeSystemMessages: true } },
    ]);
  });

  test('a transcript that does not have the prompt yet is absent; the caller retries', async () => {
    const sdk = fakeSessionSdk({ [SESSION_ID]: transcript });
    await assert.rejects(
      resolveTurnByCorrelationId({ providerSessionId: SESSION_ID, cwd: '', correlationId: 'u9' }, sdk),
      { reason: 'absent' },
    );
    assert.deepEqual(sdk.calls[0]?.options, { includeSystemMessages: true });
  });
});

describe('the legacy HMAC proof is compared in constant time', () => {
  // `node:crypto` as its CommonJS object: replacing timingSafeEqual there and syncing the builtin ESM exports
  // makes the module under test, which imports the named export, call the replacement.
  const crypto = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  const realTimingSafeEqual = crypto.timingSafeEqual;
  const single = [userMessage('u1', 'the one root'), assistantMessage('a1')];
  const calls: [Buffer, Buffer][] = [];
  let verdict: ((a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => boolean) | undefined;

  beforeEach(() => {
    calls.length = 0;
    verdict = undefined;
    crypto.timingSafeEqual = (a, b) => {
      calls.push([
        Buffer.from(a.buffer, a.byteOffset, a.byteLength),
        Buffer.from(b.buffer, b.byteOffset, b.byteLength),
      ]);
      return verdict ? verdict(a, b) : realTimingSafeEqual(a, b);
    };
    syncBuiltinESMExports();
  });

  afterEach(() => {
    crypto.timingSafeEqual = realTimingSafeEqual;
    syncBuiltinESMExports();
  });

  test('the right digest matches through timingSafeEqual, with both sides 32 bytes', () => {
    const proof = hmacProof('the one root');
    assert.equal(resolveTurnBinding(single, proof).providerTurnId, 'u1');
    assert.equal(calls.length, 1);
    const [actual, claimed] = calls[0]!;
    assert.equal(actual.length, 32);
    assert.deepEqual(claimed, Buffer.from(proof.legacyTextHmacDigest, 'base64url'));
  });

  test('a wrong digest of the same length is refused by timingSafeEqual, wherever it differs', () => {
    const proof = hmacProof('the one root');
    const digest = Buffer.from(proof.legacyTextHmacDigest, 'base64url');
    for (const index of [0, 15, 31]) {
      const wrong = Buffer.from(digest);
      wrong[index] = (wrong[index] ?? 0) ^ 0x01;
      calls.length = 0;
      assert.throws(() => resolveTurnBinding(single, { ...proof, legacyTextHmacDigest: wrong.toString('base64url') }), {
        reason: 'absent',
      });
      assert.equal(calls.length, 1, `byte ${index}: the comparison went through timingSafeEqual`);
      assert.deepEqual(calls[0]![1], wrong);
    }
  });

  test('the verdict is timingSafeEqual’s own: no other comparison decides', () => {
    const proof = hmacProof('the one root');
    verdict = () => false;
    assert.throws(() => resolveTurnBinding(single, proof), { reason: 'absent' });
    const wrong = Buffer.from(proof.legacyTextHmacDigest, 'base64url');
    wrong[0] = (wrong[0] ?? 0) ^ 0xff;
    verdict = () => true;
    assert.equal(
      resolveTurnBinding(single, { ...proof, legacyTextHmacDigest: wrong.toString('base64url') }).providerTurnId,
      'u1',
    );
  });

  test('digests of another length are refused without throwing (timingSafeEqual would throw on them)', () => {
    const proof = hmacProof('the one root');
    const digest = Buffer.from(proof.legacyTextHmacDigest, 'base64url');
    for (const other of [digest.subarray(0, 31), digest.subarray(0, 1), Buffer.concat([digest, Buffer.from([0])])]) {
      assert.throws(() => resolveTurnBinding(single, { ...proof, legacyTextHmacDigest: other.toString('base64url') }), {
        reason: 'absent',
      });
    }
    assert.deepEqual(calls, [], 'a length mismatch is decided before any byte is compared');
  });
});

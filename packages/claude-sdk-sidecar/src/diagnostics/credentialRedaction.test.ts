import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { canaries } from '../testing/canaries.ts';
import { credentialValues, REDACTED_CREDENTIAL, redactCredentials, redactingEmit } from './credentialRedaction.ts';

describe('credential redaction', () => {
  test('credentials are the values of variables named like secrets, long enough to be one', () => {
    assert.deepEqual(
      credentialValues({
        ANTHROPIC_API_KEY: canaries.credential,
        ANTHROPIC_AUTH_TOKEN: ' bearer-token-123 ',
        GITHUB_TOKEN: 'short',
        MY_PASSWORD: 'hunter22-long',
        PATH: '/usr/bin:/bin',
        HOME: '/root/very/long/home/dir',
        UNSET_KEY: undefined,
      }),
      [canaries.credential, 'bearer-token-123', 'hunter22-long'],
    );
  });

  test('known credentials and Anthropic-key-shaped strings are cut out, everything else stays', () => {
    const credentials = credentialValues({ GATEWAY_TOKEN: 'gw-0123456789abcdef' });
    assert.equal(
      redactCredentials(
        'API Error: 403 key gw-0123456789abcdef is not allowed (also sk-ant-api03-abcDEF_123-xyz)',
        credentials,
      ),
      `API Error: 403 key ${REDACTED_CREDENTIAL} is not allowed (also ${REDACTED_CREDENTIAL})`,
    );
    assert.equal(redactCredentials('API Error: 500 internal error'), 'API Error: 500 internal error');
  });
});

describe('redactingEmit', () => {
  test('cuts credentials out of failure texts only, and passes everything else through untouched', () => {
    const emitted: [string, unknown][] = [];
    const emit = redactingEmit(
      (type, payload) => {
        emitted.push([type, payload]);
      },
      () => [canaries.settingsCredential],
    );
    const failed = { turnId: 't', error: `API Error: 403 ${canaries.settingsCredential} denied` };
    emit('turn_failed', failed);
    emit('error', { error: `bad ${canaries.credential}` });
    const delta = { turnId: 't', messageId: 'm', content: canaries.settingsCredential, snapshot: '' };
    emit('assistant_delta', delta);
    assert.deepEqual(emitted, [
      ['turn_failed', { turnId: 't', error: `API Error: 403 ${REDACTED_CREDENTIAL} denied` }],
      ['error', { error: `bad ${REDACTED_CREDENTIAL}` }],
      ['assistant_delta', delta],
    ]);
    assert.equal(failed.error.includes(canaries.settingsCredential), true, 'the caller’s payload is not modified');
  });
});

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  describeErrorForDiagnostic,
  diagnosticSafeMessage,
  fingerprintError,
  SidecarError,
  withDiagnosticSinkForTest,
  writeDiagnosticLine,
} from './diagnosticLine.ts';

describe('writeDiagnosticLine', () => {
  it('writes PREFIX, one space and one line of JSON', async () => {
    const lines = await withDiagnosticSinkForTest((captured) => {
      writeDiagnosticLine('TEST_PREFIX', { stage: 'x', count: 2, note: 'a\nb' });
      return captured;
    });
    assert.deepEqual(lines, ['TEST_PREFIX {"stage":"x","count":2,"note":"a\\nb"}']);
  });

  it('restores the previous sink after the test body, also when it throws', async () => {
    await assert.rejects(
      withDiagnosticSinkForTest(() => {
        throw new Error('boom');
      }),
      /boom/,
    );
    const outer = await withDiagnosticSinkForTest(async (captured) => {
      await withDiagnosticSinkForTest(() => writeDiagnosticLine('INNER', {}));
      writeDiagnosticLine('OUTER', {});
      return captured;
    });
    assert.deepEqual(outer, ['OUTER {}']);
  });
});

describe('fingerprintError', () => {
  it('hashes the message and keeps only its length, never the text', () => {
    const error = Object.assign(new TypeError('secret prompt text'), { code: 'ECONNRESET', status: 401 });
    const expected = createHash('sha256').update('secret prompt text').digest('hex').slice(0, 12);
    assert.deepEqual(fingerprintError(error), {
      name: 'TypeError',
      code: 'ECONNRESET',
      status: 401,
      messageLength: 18,
      messageFingerprint: expected,
    });
    assert.doesNotMatch(JSON.stringify(fingerprintError(error)), /secret/);
  });

  it('drops codes that look like free text and describes non-errors by type', () => {
    const error = Object.assign(new Error('m'), { code: 'user said: rm -rf /', status: '500' });
    const fingerprint = fingerprintError(error);
    assert.equal(fingerprint.code, undefined);
    assert.equal(fingerprint.status, undefined);
    assert.equal(fingerprintError('plain string').name, 'string');
    assert.equal(fingerprintError('plain string').messageLength, 12);
  });
});

describe('describeErrorForDiagnostic', () => {
  it('keeps the message of errors marked safe, and of SidecarError', () => {
    class ShutdownTimeout extends Error {
      readonly [diagnosticSafeMessage] = true;
      override readonly name = 'ShutdownTimeout';
    }
    assert.deepEqual(describeErrorForDiagnostic(new ShutdownTimeout('timed out after 5ms')), {
      name: 'ShutdownTimeout',
      message: 'timed out after 5ms',
    });
    assert.deepEqual(describeErrorForDiagnostic(new SidecarError('Claude SDK lost canceled Query turn t1')), {
      name: 'Error',
      message: 'Claude SDK lost canceled Query turn t1',
    });
  });

  it("keeps the SDK's fixed texts without their tails, and redacts everything else", () => {
    assert.deepEqual(describeErrorForDiagnostic(new Error('Query closed before response received')), {
      name: 'Error',
      message: 'Query closed before response received',
    });
    const exited = describeErrorForDiagnostic(new Error('Claude Code process exited with code 1\nstderr: CANARY'));
    assert.equal(exited.message, 'Claude Code process exited with code 1');
    assert.equal(exited.messageLength, 53, 'a cut message says so with its fingerprint');
    const foreign = describeErrorForDiagnostic(Object.assign(new Error('tool said CANARY'), { code: 'ECONNRESET' }));
    assert.deepEqual(Object.keys(foreign).sort(), ['code', 'message', 'messageFingerprint', 'messageLength', 'name']);
    assert.equal(foreign.message, 'redacted');
    assert.equal(foreign.messageLength, 16);
    assert.doesNotMatch(JSON.stringify(foreign), /CANARY/);
  });
});

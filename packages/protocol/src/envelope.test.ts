import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSidecarLine } from './envelope.ts';

test('sidecar lines need version 10 and a type', () => {
  assert.deepEqual(parseSidecarLine('{"version":10,"id":"r1","type":"ok"}'), {
    kind: 'message',
    message: { version: 10, id: 'r1', type: 'ok' },
  });
  assert.deepEqual(parseSidecarLine('{"version":10,"type":"guidance_interrupted","payload":{"turnId":"t"}}'), {
    kind: 'message',
    message: { version: 10, type: 'guidance_interrupted', payload: { turnId: 't' } },
  });
  assert.deepEqual(parseSidecarLine('  '), { kind: 'blank' });
  assert.deepEqual(parseSidecarLine('not json'), { kind: 'invalid', error: 'sidecar output is not valid JSON' });
  assert.deepEqual(parseSidecarLine('[]'), { kind: 'invalid', error: 'sidecar output must be an object' });
  assert.deepEqual(parseSidecarLine('{"type":"ok"}'), {
    kind: 'invalid',
    error: 'unsupported sidecar protocol version missing',
  });
  assert.deepEqual(parseSidecarLine('{"version":11,"type":"ok"}'), {
    kind: 'invalid',
    error: 'unsupported sidecar protocol version 11',
  });
  // String() of this object throws; the version is described, not converted.
  assert.deepEqual(parseSidecarLine('{"version":{"toString":0},"type":"ok"}'), {
    kind: 'invalid',
    error: 'unsupported sidecar protocol version (an object)',
  });
  assert.deepEqual(parseSidecarLine('{"version":10,"type":""}'), {
    kind: 'invalid',
    error: 'sidecar event type is required',
  });
  assert.deepEqual(parseSidecarLine('{"version":10,"type":"ok","id":1}'), {
    kind: 'invalid',
    error: 'sidecar event id must be a string',
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeError, encodeEvent, encodeOk, encodeRequest } from './encode.ts';

test('events carry version, type, payload in that order and no id', () => {
  assert.equal(
    encodeEvent('turn_completed', { turnId: 't1', stopReason: 'end_turn' }),
    '{"version":10,"type":"turn_completed","payload":{"turnId":"t1","stopReason":"end_turn"}}',
  );
  assert.equal(encodeEvent('session_state'), '{"version":10,"type":"session_state"}');
});

test('ok responses echo the id after the version; no payload means no payload key', () => {
  assert.equal(encodeOk('r1'), '{"version":10,"id":"r1","type":"ok"}');
  assert.equal(encodeOk('r2', { stopped: true }), '{"version":10,"id":"r2","type":"ok","payload":{"stopped":true}}');
  assert.equal(encodeOk(undefined), '{"version":10,"type":"ok"}');
});

test('error responses carry the message, then deliveryDisposition and stage when given as strings', () => {
  assert.equal(
    encodeError('r3', 'session s is not started'),
    '{"version":10,"id":"r3","type":"error","payload":{"error":"session s is not started"}}',
  );
  assert.equal(
    encodeError('r4', 'fork failed', { stage: 'provider_fork', deliveryDisposition: 'unknown' }),
    '{"version":10,"id":"r4","type":"error","payload":{"error":"fork failed","deliveryDisposition":"unknown","stage":"provider_fork"}}',
  );
  assert.equal(encodeError(undefined, 'bad line'), '{"version":10,"type":"error","payload":{"error":"bad line"}}');
});

test('encoded lines are single-line JSON even when strings contain newlines', () => {
  const line = encodeEvent('assistant_delta', { content: 'a\nb\r\n', snapshot: '\u2028' });
  assert.ok(!line.includes('\n') && !line.includes('\r'));
  assert.deepEqual(JSON.parse(line).payload, { content: 'a\nb\r\n', snapshot: '\u2028' });
});

test('requests use the same envelope', () => {
  assert.equal(
    encodeRequest('close', { agentSessionId: 's' }, 'r5'),
    '{"version":10,"id":"r5","type":"close","payload":{"agentSessionId":"s"}}',
  );
});

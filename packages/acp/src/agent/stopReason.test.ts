import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionEventPayload } from '@outrigger/host-api';
import { stopReasonOf } from './stopReason.ts';

const done = (outcome: SessionEventPayload<'done'>['outcome'], message?: string): SessionEventPayload<'done'> => ({
  session_id: 's',
  seq: 9,
  turnId: 't',
  outcome,
  error: message === undefined ? null : { message, code: 'x', apiErrorStatus: null },
});
const result = (stopReason: string | null) =>
  ({
    session_id: 's',
    seq: 8,
    turnId: 't',
    outcome: 'completed',
    stopReason,
    error: null,
    usage: null,
    durationMs: 1,
  }) as const;

test('a completed turn answers Claude’s stop reason where ACP has one; a canceled one cancelled', () => {
  assert.equal(stopReasonOf(done('completed'), result('end_turn')), 'end_turn');
  assert.equal(stopReasonOf(done('completed'), result('max_tokens')), 'max_tokens');
  assert.equal(stopReasonOf(done('completed'), result('refusal')), 'refusal');
  assert.equal(stopReasonOf(done('completed'), undefined), 'end_turn');
  assert.equal(stopReasonOf(done('canceled'), undefined), 'cancelled');
});

test('a failed or interrupted turn is an error with the host’s message', () => {
  assert.throws(
    () => stopReasonOf(done('failed', 'Prompt is too long'), undefined),
    /the turn failed: Prompt is too long/,
  );
  assert.throws(() => stopReasonOf(done('interrupted'), undefined), /interrupted/);
});

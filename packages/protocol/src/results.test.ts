import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requestTypes } from './requestTypes.ts';
import {
  cancelResultSchema,
  dispatchPhases,
  errorPayloadSchema,
  forkSessionResultSchema,
  interactiveResultSchema,
  requestResultSchemas,
} from './results.ts';

test('there is one result schema per request type; payload-less answers are undefined', () => {
  assert.deepEqual(Object.keys(requestResultSchemas).sort(), [...requestTypes].sort());
  for (const type of ['exec', 'guide', 'apply_settings', 'close'] as const) {
    assert.ok(requestResultSchemas[type].safeParse(undefined).success, type);
    assert.equal(requestResultSchemas[type].safeParse({}).success, false, type);
  }
});

test('cancel results carry one of the five dispositions and a known dispatch phase', () => {
  const result = {
    canceled: true,
    disposition: 'provider_active',
    turnId: 't1',
    providerTurnId: 'u1',
    dispatchPhase: 'streaming',
  };
  assert.ok(cancelResultSchema.safeParse(result).success);
  assert.equal(dispatchPhases.length, 12);
  assert.ok(cancelResultSchema.safeParse({ ...result, dispatchPhase: 'pending_goal' }).success);
  assert.equal(cancelResultSchema.safeParse({ ...result, disposition: 'unresolved' }).success, false);
  assert.equal(cancelResultSchema.safeParse({ ...result, dispatchPhase: 'done' }).success, false);
  assert.ok(cancelResultSchema.safeParse({ ...result, queryRetired: false }).success, 'queryRetired is optional');
  assert.equal(cancelResultSchema.safeParse({ ...result, queryRetired: 'no' }).success, false);
});

test('interactive results: replayed is optional', () => {
  assert.ok(interactiveResultSchema.safeParse({ disposition: 'pending' }).success);
  assert.ok(interactiveResultSchema.safeParse({ disposition: 'answered', replayed: true }).success);
  assert.equal(interactiveResultSchema.safeParse({ disposition: 'rejected' }).success, false);
});

test('fork results must be provider-owned and accepted', () => {
  const result = {
    providerSessionId: 'child',
    targetProviderTurnBindings: [{ providerTurnId: 'u1', checkpointMessageId: 'a1' }],
    stateBindingMode: 'provider_owned',
    stateBindingReceipt: 'claude-sdk-fork-v3:ab12',
    deliveryDisposition: 'accepted',
  };
  assert.ok(forkSessionResultSchema.safeParse(result).success);
  assert.equal(forkSessionResultSchema.safeParse({ ...result, deliveryDisposition: 'unknown' }).success, false);
});

test('error payloads keep stage and deliveryDisposition', () => {
  const parsed = errorPayloadSchema.parse({ error: 'x', stage: 'consumption', deliveryDisposition: 'unknown' });
  assert.deepEqual(parsed, { error: 'x', stage: 'consumption', deliveryDisposition: 'unknown' });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hostLimits } from './limits.ts';
import { cancelTurnBodySchema, postTurnBodySchema } from './turns.ts';

const image = (bytes: number) => ({
  type: 'image',
  source: { type: 'base64', media_type: 'image/png', data: Buffer.alloc(bytes).toString('base64') },
});

test('a turn needs a prompt or content, and refuses keys it does not know', () => {
  assert.equal(postTurnBodySchema.safeParse({ prompt: '  ' }).success, false);
  assert.equal(postTurnBodySchema.safeParse({ prompt: '', content: [image(10)] }).success, true);
  assert.equal(postTurnBodySchema.safeParse({ prompt: 'hi', extra: 1 }).success, false);
  assert.equal(postTurnBodySchema.safeParse({ prompt: 'hi', mode: 'steer', clientMessageId: 'c1' }).success, true);
});

test('images are base64 of an allowed type and at most the size limit', () => {
  assert.equal(postTurnBodySchema.safeParse({ prompt: 'x', content: [image(hostLimits.maxImageBytes)] }).success, true);
  assert.equal(
    postTurnBodySchema.safeParse({ prompt: 'x', content: [image(hostLimits.maxImageBytes + 3)] }).success,
    false,
  );
  const bad = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'not base64!' } };
  assert.equal(postTurnBodySchema.safeParse({ prompt: 'x', content: [bad] }).success, false);
  const svg = { type: 'image', source: { type: 'base64', media_type: 'image/svg+xml', data: 'AAAA' } };
  assert.equal(postTurnBodySchema.safeParse({ prompt: 'x', content: [svg] }).success, false);
});

test('cancel budgets are positive integers within the limit', () => {
  assert.equal(cancelTurnBodySchema.safeParse({}).success, true);
  assert.equal(cancelTurnBodySchema.safeParse({ interruptTimeoutMs: 0 }).success, false);
  assert.equal(cancelTurnBodySchema.safeParse({ drainTimeoutMs: 1.5 }).success, false);
  assert.equal(cancelTurnBodySchema.safeParse({ drainTimeoutMs: hostLimits.maxCancelBudgetMs + 1 }).success, false);
});

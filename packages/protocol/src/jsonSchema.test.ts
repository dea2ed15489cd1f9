import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { buildProtocolJsonSchema, JSON_SCHEMA_PATH, renderProtocolJsonSchema } from './jsonSchema.ts';
import { requestTypes } from './requestTypes.ts';

test('the checked-in JSON Schema matches the zod schemas', () => {
  const checkedIn = readFileSync(JSON_SCHEMA_PATH, 'utf8');
  assert.ok(
    checkedIn === renderProtocolJsonSchema(),
    'packages/protocol/schema/sidecar-protocol.schema.json is stale: run `npm run generate -w @outrigger/protocol`',
  );
});

test('the JSON Schema describes every request, the results that have a payload, and the events', () => {
  const definitions = buildProtocolJsonSchema().$defs as Record<string, { required?: string[] }>;
  for (const type of requestTypes) assert.ok(definitions[`request.${type}`], `request.${type}`);
  assert.equal(definitions['result.exec'], undefined);
  assert.deepEqual(definitions['result.start']?.required, ['providerSessionId']);
  assert.deepEqual(definitions['request.cancel']?.required, ['agentSessionId', 'interruptTimeoutMs', 'drainTimeoutMs']);
  assert.ok(definitions['event.turn_completed']?.required?.includes('stopReason'));
});

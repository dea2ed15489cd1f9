import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { sessionEventTypes } from './events/sessionEvents.ts';
import { buildHostApiJsonSchema, JSON_SCHEMA_PATH, renderHostApiJsonSchema } from './jsonSchema.ts';

test('the checked-in JSON Schema matches the zod schemas', () => {
  assert.ok(
    readFileSync(JSON_SCHEMA_PATH, 'utf8') === renderHostApiJsonSchema(),
    'packages/host-api/schema/host-api.schema.json is stale: run `npm run generate -w @outrigger/host-api`',
  );
});

test('the JSON Schema describes every route body, response and stream event', () => {
  const definitions = buildHostApiJsonSchema().$defs as Record<string, { required?: string[] }>;
  assert.deepEqual(definitions['body.createSession']?.required, ['cwd']);
  assert.ok(definitions['response.getSession']?.required?.includes('lastSeq'));
  for (const type of sessionEventTypes) {
    assert.ok(definitions[`event.${type}`]?.required?.includes('session_id'), `event.${type} carries session_id`);
  }
  assert.equal(definitions['response.closeSession'], undefined);
});

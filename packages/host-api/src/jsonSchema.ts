import { z } from 'zod';
import { hostErrorBodySchema } from './errors.ts';
import { hostEventPayloadSchemas } from './events/hostEvents.ts';
import { heartbeatPayloadSchema, sessionEventPayloadSchemas } from './events/sessionEvents.ts';
import { hostRoutes } from './routes.ts';

export const JSON_SCHEMA_PATH = new URL('../schema/host-api.schema.json', import.meta.url);

type JsonSchema = Record<string, unknown>;

/**
 * One JSON Schema document for the host API, generated from the zod schemas: `body.<route>` and
 * `query.<route>` as a client sends them, `response.<route>` as the host answers, `event.<type>` the
 * payload of a session stream event, `hostEvent.<type>` of the host stream.
 */
export function buildHostApiJsonSchema(): JsonSchema {
  const definitions: Record<string, JsonSchema> = {
    error: toJson(hostErrorBodySchema, 'output'),
    heartbeat: toJson(heartbeatPayloadSchema, 'output'),
  };
  for (const [name, route] of Object.entries(hostRoutes)) {
    if ('body' in route && route.body) definitions[`body.${name}`] = toJson(route.body, 'input');
    if ('query' in route && route.query) definitions[`query.${name}`] = toJson(route.query, 'input');
    if ('response' in route && route.response) definitions[`response.${name}`] = toJson(route.response, 'output');
  }
  for (const [type, schema] of Object.entries(sessionEventPayloadSchemas)) {
    definitions[`event.${type}`] = toJson(schema, 'output');
  }
  for (const [type, schema] of Object.entries(hostEventPayloadSchemas)) {
    definitions[`hostEvent.${type}`] = toJson(schema, 'output');
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://outrigger.dev/schema/host-api.schema.json',
    title: 'Outrigger host API',
    description:
      'Generated from packages/host-api/src by `npm run generate -w @outrigger/host-api`. See docs/host-api.md.',
    $defs: definitions,
  };
}

export function renderHostApiJsonSchema(): string {
  return `${JSON.stringify(buildHostApiJsonSchema(), null, 2)}\n`;
}

function toJson(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  return rest;
}

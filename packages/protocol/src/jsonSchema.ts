import { z } from 'zod';
import { requestEnvelopeSchema, sidecarMessageSchema } from './envelope.ts';
import { eventPayloadSchemas } from './events/index.ts';
import { requestPayloadSchemas } from './requests/index.ts';
import { requestTypes } from './requestTypes.ts';
import { errorPayloadSchema, requestResultSchemas } from './results.ts';
import { PROTOCOL_VERSION } from './version.ts';

export const JSON_SCHEMA_PATH = new URL('../schema/sidecar-protocol.schema.json', import.meta.url);

type JsonSchema = Record<string, unknown>;

/**
 * One JSON Schema document for the whole protocol, generated from the zod schemas.
 * Requests are described as a host may send them (input side: lenient fields show their
 * defaults); results and events as the sidecar writes them.
 */
export function buildProtocolJsonSchema(): JsonSchema {
  const definitions: Record<string, JsonSchema> = {
    requestEnvelope: toJson(requestEnvelopeSchema, 'input'),
    sidecarMessage: toJson(sidecarMessageSchema, 'output'),
    errorPayload: toJson(errorPayloadSchema, 'output'),
  };
  for (const type of requestTypes) {
    definitions[`request.${type}`] = toJson(requestPayloadSchemas[type], 'input');
    const result = requestResultSchemas[type];
    if (!(result instanceof z.ZodUndefined)) definitions[`result.${type}`] = toJson(result, 'output');
  }
  for (const [type, schema] of Object.entries(eventPayloadSchemas)) {
    definitions[`event.${type}`] = toJson(schema, 'output');
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://outrigger.dev/schema/sidecar-protocol.schema.json',
    title: `Outrigger sidecar protocol ${PROTOCOL_VERSION}`,
    description:
      'Generated from packages/protocol/src by `npm run generate -w @outrigger/protocol`. ' +
      'request.<type> is the payload of a request, result.<type> the payload of its ok response, ' +
      'event.<type> the payload of an event.',
    $defs: definitions,
  };
}

export function renderProtocolJsonSchema(): string {
  return `${JSON.stringify(buildProtocolJsonSchema(), null, 2)}\n`;
}

function toJson(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  return rest;
}

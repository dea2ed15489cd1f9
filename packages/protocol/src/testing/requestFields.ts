import { requestPayloadSchemas } from '../requests/index.ts';
import type { RequestType } from '../requestTypes.ts';

/** The keys a request's payload schema reads, so generated payloads get past the first missing field. */
export function requestFieldNames(type: RequestType): string[] {
  const schema = requestPayloadSchemas[type] as unknown as {
    shape?: Record<string, unknown>;
    _zod: { def: { in?: { shape?: Record<string, unknown> } } };
  };
  return Object.keys(schema.shape ?? schema._zod.def.in?.shape ?? {});
}

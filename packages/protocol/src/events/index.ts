import { z } from 'zod';
import { assistantEventSchemas } from './assistant.ts';
import { backgroundEventSchemas } from './background.ts';
import { compactionEventSchemas } from './compaction.ts';
import { goalEventSchemas } from './goals.ts';
import { interactionEventSchemas } from './interactions.ts';
import { sessionEventSchemas } from './session.ts';
import { toolEventSchemas } from './tools.ts';
import { turnEventSchemas } from './turn.ts';
import { usageEventSchemas } from './usage.ts';

/**
 * One sidecar serves many sessions, so every event a session emits names it (an addition to protocol 10;
 * difference 13 in docs/protocol.md). Optional: process-level events (an uncorrelated `error`) have none,
 * and neither has any event of an original sidecar. Part of every event schema so the JSON Schema a host
 * in another language reads lists it too.
 */
const sessionIdShape = {
  agentSessionId: z
    .string()
    .optional()
    .describe('The Agent Session that emitted the event; absent on process-level events (an uncorrelated error).'),
};

type WithSessionId<Schemas extends Record<string, z.ZodObject>> = {
  [T in keyof Schemas]: Schemas[T] extends z.ZodObject<infer Shape, infer Config>
    ? z.ZodObject<z.core.util.Extend<Shape, typeof sessionIdShape>, Config>
    : never;
};

function withSessionId<Schemas extends Record<string, z.ZodObject>>(schemas: Schemas): WithSessionId<Schemas> {
  return Object.fromEntries(
    Object.entries(schemas).map(([type, schema]) => [type, schema.extend(sessionIdShape)]),
  ) as WithSessionId<Schemas>;
}

/** Every event the sidecar emits, by type. Loose objects: additive fields from newer sidecars pass. */
export const eventPayloadSchemas = withSessionId({
  ...sessionEventSchemas,
  ...usageEventSchemas,
  ...turnEventSchemas,
  ...goalEventSchemas,
  ...assistantEventSchemas,
  ...toolEventSchemas,
  ...backgroundEventSchemas,
  ...interactionEventSchemas,
  ...compactionEventSchemas,
} as const);

export type SidecarEventType = keyof typeof eventPayloadSchemas;
export type SidecarEventPayload<T extends SidecarEventType> = z.output<(typeof eventPayloadSchemas)[T]>;

export type EmitEvent = <T extends SidecarEventType>(type: T, payload: SidecarEventPayload<T>) => void;

/** One received event, discriminated by `type`. `id` is set only on an `error` answering a request. */
export type SidecarEvent = {
  [T in SidecarEventType]: { type: T; payload: SidecarEventPayload<T>; id?: string };
}[SidecarEventType];

export const sidecarEventTypes = Object.keys(eventPayloadSchemas) as SidecarEventType[];

const eventTypeSet: ReadonlySet<string> = new Set(sidecarEventTypes);

export function isSidecarEventType(value: string): value is SidecarEventType {
  return eventTypeSet.has(value);
}

/**
 * The session an event belongs to. One sidecar serves many sessions, so every event a session emits
 * carries its `agentSessionId` (an addition to protocol 10; see docs/protocol.md). Stateless and
 * process-level events (an uncorrelated `error`) have none.
 */
export function eventSessionId(event: SidecarEvent): string | undefined {
  const id = (event.payload as { agentSessionId?: unknown }).agentSessionId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

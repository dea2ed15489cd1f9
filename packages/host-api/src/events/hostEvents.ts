import { z } from 'zod';
import { interactionResolutions, interactionSchema, interactionStatuses } from '../interactions.ts';
import { sessionSummarySchema } from '../sessions.ts';

/*
 * The host-level stream (`GET /api/events`): what the sidebar and the needs-you inbox show, for every
 * session. It has its own log and `seq`, with the same framing, replay and heartbeats as a session's
 * stream.
 */

const base = { seq: z.number().int().positive() };

export const hostEventPayloadSchemas = {
  /** A session was created or its summary changed (status, title, needs-you count, closed): upsert by `session.id`. */
  session: z.object({ ...base, session: sessionSummarySchema }),
  /**
   * A session was deleted (`POST /api/sessions/:id/delete`): drop it. Its rows, its own stream's events and
   * the host stream's earlier events about it are gone from the store, so a replay never shows it again.
   */
  session_deleted: z.object({ ...base, session_id: z.string() }),
  /** An interaction became pending in some session (the inbox adds it). */
  permission_request: z.object({ ...base, session_id: z.string(), interaction: interactionSchema }),
  /** It was answered or superseded (the inbox drops it, in every tab). */
  permission_resolved: z.object({
    ...base,
    session_id: z.string(),
    turnId: z.string(),
    requestId: z.string(),
    status: z.enum(interactionStatuses),
    resolution: z.enum(interactionResolutions),
  }),
} as const;

export type HostEventType = keyof typeof hostEventPayloadSchemas;
export type HostEventPayload<T extends HostEventType> = z.output<(typeof hostEventPayloadSchemas)[T]>;
export type HostEvent = { [T in HostEventType]: { type: T; data: HostEventPayload<T> } }[HostEventType];

export const hostEventTypes = Object.keys(hostEventPayloadSchemas) as HostEventType[];

export function isHostEventType(type: string): type is HostEventType {
  return Object.hasOwn(hostEventPayloadSchemas, type);
}

/** `?after=` on both streams; `Last-Event-ID` wins when both are given. */
export const streamQuerySchema = z.strictObject({
  after: z.coerce.number().int().nonnegative().optional(),
});

import { isTurnTerminalEventType } from '@outrigger/protocol';

/** Event types by what they mean for one turn, for assertions over a sidecar's output. */

/** The assistant, thinking and tool output a turn publishes between its identity and its terminal. */
export const TURN_OUTPUT_EVENT_TYPES: readonly string[] = [
  'assistant_delta',
  'assistant_completed',
  'assistant_failed',
  'thinking_delta',
  'thinking_completed',
  'tool_started',
  'tool_updated',
  'tool_completed',
  'tool_failed',
];

/** Matches the event (or logged line) that ended turn `turnId`. */
export function isTerminalOf(turnId: string): (event: { readonly type: string; readonly payload: unknown }) => boolean {
  return (event) => isTurnTerminalEventType(event.type) && (event.payload as { turnId?: unknown })?.turnId === turnId;
}

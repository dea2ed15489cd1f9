import type { SidecarProcess } from '@outrigger/claude-sdk-sidecar/process';
import type { SidecarEvent } from '@outrigger/protocol';

const TERMINAL_TYPES: ReadonlySet<string> = new Set(['turn_completed', 'turn_failed', 'turn_canceled']);

/** Waits for sidecar events of one session: the next event that matches, bounded by a timeout. */
export function nextEvent(
  sidecar: SidecarProcess,
  predicate: (event: SidecarEvent) => boolean,
  timeoutMs: number,
  description: string,
): Promise<SidecarEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`no ${description} within ${timeoutMs} ms`));
    }, timeoutMs);
    const unsubscribe = sidecar.client.onEvent((event) => {
      if (!predicate(event)) return;
      clearTimeout(timer);
      unsubscribe();
      resolve(event);
    });
  });
}

/** The terminal event of `turnId`. Subscribe before sending the exec, so a fast turn is not missed. */
export function turnTerminal(sidecar: SidecarProcess, turnId: string, timeoutMs: number): Promise<SidecarEvent> {
  return nextEvent(
    sidecar,
    (event) => TERMINAL_TYPES.has(event.type) && 'turnId' in event.payload && event.payload.turnId === turnId,
    timeoutMs,
    `terminal event for ${turnId}`,
  );
}

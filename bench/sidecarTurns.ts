import type { SidecarProcess } from '@outrigger/claude-sdk-sidecar/process';
import { isTurnTerminalEventType, type SidecarEvent } from '@outrigger/protocol';

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
    (event) => isTurnTerminalEventType(event.type) && 'turnId' in event.payload && event.payload.turnId === turnId,
    timeoutMs,
    `terminal event for ${turnId}`,
  );
}

/** Runs one turn to its end: watches for its terminal event, sends `exec`, and fails unless the turn completed. */
export async function completeTurn(
  sidecar: SidecarProcess,
  turn: { agentSessionId: string; turnId: string; prompt: string },
  timeoutMs: number,
): Promise<void> {
  const ended = turnTerminal(sidecar, turn.turnId, timeoutMs);
  await sidecar.client.request('exec', turn);
  const terminal = await ended;
  if (terminal.type !== 'turn_completed') throw new Error(`bench turn ${turn.turnId} ended with ${terminal.type}`);
}

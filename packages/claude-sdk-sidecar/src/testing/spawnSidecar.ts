import type { SidecarEvent, SidecarProtocolError } from '@outrigger/protocol';
import { type SidecarProcess, type SidecarProcessOptions, spawnSidecarProcess } from '../process/sidecarProcess.ts';
import { ensureSidecarBuilt } from './ensureSidecarBuilt.ts';
import { type WaitOptions, waitForMatch } from './waitForMatch.ts';

/** Tests read every diagnostic a sidecar wrote over a whole file. */
const TEST_MAX_STDERR_LINES = 20_000;

/**
 * A real sidecar process (the built entry, rebuilt first when stale) that also collects every event and
 * every protocol error, for assertions.
 */
export interface SpawnedSidecar extends SidecarProcess {
  readonly events: readonly SidecarEvent[];
  readonly protocolErrors: readonly SidecarProtocolError[];
  waitForEvent(predicate: (event: SidecarEvent) => boolean, options?: WaitOptions): Promise<SidecarEvent>;
}

export async function spawnSidecar(options: SidecarProcessOptions): Promise<SpawnedSidecar> {
  if (options.entry === undefined) await ensureSidecarBuilt();
  const sidecar = await spawnSidecarProcess({ maxStderrLines: TEST_MAX_STDERR_LINES, ...options });
  const events: SidecarEvent[] = [];
  const protocolErrors: SidecarProtocolError[] = [];
  sidecar.client.onEvent((event) => events.push(event));
  sidecar.client.onProtocolError((error) => protocolErrors.push(error));
  return {
    ...sidecar,
    events,
    protocolErrors,
    waitForEvent: (predicate, wait) =>
      waitForMatch(events, (wake) => sidecar.client.onEvent(wake), predicate, {
        description: 'an event',
        ...wait,
      }),
  };
}

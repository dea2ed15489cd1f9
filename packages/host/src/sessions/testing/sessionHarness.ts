import { recordingLogger } from '../../logging/runtimeLogger.ts';
import {
  createFakeSidecar,
  defaultHandler,
  type FakeHandler,
  type FakeSidecar,
} from '../../sidecar/fakeSidecarConnection.ts';
import { SidecarSupervisor } from '../../sidecar/sidecarSupervisor.ts';
import { testSession } from '../../store/testRecords.ts';
import { HostSession, type HostSessionDeps } from '../hostSession.ts';
import { FakeLedger } from './fakeLedger.ts';

/**
 * One `HostSession` over a real `SidecarSupervisor` whose sidecars are scripted (`handler`) and an in-memory
 * ledger: the wiring the session state machine's tests share. `deps` adds to the session's dependencies;
 * ids count on from the ledger's turns.
 */
export function sessionHarness(
  options: {
    handler?: FakeHandler;
    ledger?: FakeLedger;
    deps?: Partial<Omit<HostSessionDeps, 'sidecar' | 'store' | 'logger'>>;
  } = {},
) {
  const logger = recordingLogger();
  const sidecars: FakeSidecar[] = [];
  const handler = options.handler ?? defaultHandler;
  const supervisor = new SidecarSupervisor({
    logger,
    exitReportGraceMs: 50,
    spawn: async () => {
      const fake = createFakeSidecar(handler);
      sidecars.push(fake);
      return fake;
    },
  });
  const ledger = options.ledger ?? new FakeLedger(testSession('s1'));
  let next = ledger.turns.size;
  const session = new HostSession(ledger, {
    sidecar: supervisor,
    store: ledger.store,
    logger,
    now: () => 1_000,
    newId: () => `id-${++next}`,
    ...options.deps,
  });
  supervisor.onSessionEvent((sessionId, event) => {
    if (sessionId === session.id) session.onSidecarEvent(event);
  });
  supervisor.onExit((report) => session.onSidecarExit(report));
  return { supervisor, ledger, session, sidecars, logger, close: () => supervisor.close() };
}

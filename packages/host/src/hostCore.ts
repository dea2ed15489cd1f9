import { join } from 'node:path';
import { CommitPublisher } from './events/commitPublisher.ts';
import { EventHub } from './events/eventHub.ts';
import { ProjectedSessionLedgers } from './projection/projectedSessionLedger.ts';
import { hostViews } from './projection/views.ts';
import type { ServiceContext, ServiceFactory } from './service/serviceFactory.ts';
import { SessionManager } from './sessions/sessionManager.ts';
import { hostMarkFor, reapPreviousRun } from './sidecar/processMarks.ts';
import { spawnSidecarConnection } from './sidecar/sidecarConnection.ts';
import { SidecarSupervisor } from './sidecar/sidecarSupervisor.ts';
import type { HostStore } from './store/hostStore.ts';
import { SqliteHostStore } from './store/sqlite/sqliteHostStore.ts';

/**
 * The real core behind the HTTP layer, built from the serve context: the SQLite store, the event hub and
 * its commit publisher (persist, then publish), the projection's ledgers and views, the sidecar supervisor
 * (one sidecar, spawned on first need with the model backend's environment) and the session manager, which
 * recovers what a previous run left running before the host takes requests. Closing the manager closes all
 * of it: sessions, the sidecar and its children, the streams, the store.
 */
export const createHostService: ServiceFactory = (context) => hostServiceFactory()(context);

export interface HostServiceFactoryOptions {
  /** Wraps the SQLite store the core uses (the fault tests of issue 11 put a `FaultInjectingStore` around it). */
  readonly wrapStore?: (store: HostStore) => HostStore;
}

/** The real core's factory, with the store wrapped when the options say so. */
export function hostServiceFactory(options: HostServiceFactoryOptions = {}): ServiceFactory {
  return (context) => createCore(context, options);
}

async function createCore(context: ServiceContext, options: HostServiceFactoryOptions) {
  const sqlite = SqliteHostStore.open({ path: context.databasePath });
  const store = options.wrapStore?.(sqlite) ?? sqlite;
  try {
    const hub = new EventHub(store);
    const publisher = new CommitPublisher(store, hub);
    // A run of this host that was killed may have left tools running (in process groups of their own).
    const hostMark = hostMarkFor(context.databasePath);
    const reaped = await reapPreviousRun(hostMark);
    if (reaped > 0) {
      context.runtimeLogger.warn(
        { event: 'host.previous_run_reaped', count: reaped },
        'killed processes a previous run of this host left running',
      );
    }
    const supervisor = new SidecarSupervisor({
      spawn: () => spawnSidecarConnection({ env: context.sidecarEnv, entry: context.sidecarEntry, hostMark }),
      logger: context.runtimeLogger,
    });
    return await SessionManager.open({
      store,
      streams: hub,
      ledgers: new ProjectedSessionLedgers({ store, committer: publisher }),
      views: hostViews,
      supervisor,
      logger: context.runtimeLogger,
      info: context.info,
      allowRoots: context.allowRoots,
      toolTimeoutMs: context.toolTimeoutMs,
      checkpointsDir: join(context.dataDir, 'checkpoints'),
      worktreesDir: join(context.dataDir, 'worktrees'),
      committer: publisher,
    });
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
}

import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ClaudeHistorySdk, claudeConfigDir, claudeHistorySdk } from '@outrigger/claude-sdk-sidecar';
import { CommitPublisher } from './events/commitPublisher.ts';
import { EventHub } from './events/eventHub.ts';
import { ClaudeHistory } from './history/claudeHistory.ts';
import { HistoryService } from './history/historyService.ts';
import { hostServiceWithHistory } from './history/hostServiceWithHistory.ts';
import { ProjectedSessionLedgers } from './projection/projectedSessionLedger.ts';
import { terminalConfigDir } from './projection/terminalCommand.ts';
import { hostViewsFor } from './projection/views.ts';
import type { ServiceContext, ServiceFactory } from './service/serviceFactory.ts';
import { sdkTranscripts } from './sessions/claudeTranscripts.ts';
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
 * recovers what a previous run left running before the host takes requests, and beside it Claude Code's history
 * (`history/`). Closing it closes all of it: the history's watch, sessions, the sidecar and its children, the
 * streams, the store.
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
    const sdk = claudeHistorySdkOf(context);
    const history = new ClaudeHistory({
      configDir: sdk.configDir,
      sdk: sdk.sdk,
      store,
      allowRoots: context.allowRoots,
      logger: context.runtimeLogger,
    });
    const manager = await SessionManager.open({
      store,
      streams: hub,
      ledgers: new ProjectedSessionLedgers({ store, committer: publisher }),
      // The terminal command names the config dir only when a terminal's `claude` would not use it by itself.
      views: hostViewsFor({ configDir: terminalConfigDir(sdk.configDir) }),
      supervisor,
      logger: context.runtimeLogger,
      info: context.info,
      allowRoots: context.allowRoots,
      toolTimeoutMs: context.toolTimeoutMs,
      checkpointsDir: join(context.dataDir, 'checkpoints'),
      worktreesDir: join(context.dataDir, 'worktrees'),
      committer: publisher,
      history,
      transcripts: sdkTranscripts(sdk.configDir, sdk.sdk),
    });
    return hostServiceWithHistory(manager, new HistoryService(history));
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
}

/**
 * The SDK's session functions over the sidecar's config dir (the transcripts this host's own sessions write too),
 * in a worker thread. The installed host is bundled away from the sidecar, whose `dist/` holds the worker's file:
 * it is named from the sidecar's entry then.
 */
function claudeHistorySdkOf(context: ServiceContext): { configDir: string; sdk: ClaudeHistorySdk } {
  const configDir = claudeConfigDir(context.sidecarEnv.CLAUDE_CONFIG_DIR);
  const workerUrl =
    context.sidecarEntry === undefined
      ? undefined
      : pathToFileURL(join(dirname(context.sidecarEntry), 'sessionSdkWorker.js'));
  return { configDir, sdk: claudeHistorySdk(configDir, workerUrl) };
}

import type { HostInfo } from '@outrigger/host-api';
import type { HostLogger } from '../logging/hostLogger.ts';
import type { RuntimeLogger } from '../logging/runtimeLogger.ts';
import type { HostService } from './hostService.ts';

/** Everything the core needs to be built; `serve.ts` makes it, the core's factory (`hostCore.ts`) uses it. */
export interface ServiceContext {
  readonly dataDir: string;
  /** The SQLite database file. */
  readonly databasePath: string;
  /** The sidecar's complete environment (the model backend's). */
  readonly sidecarEnv: Readonly<Record<string, string | undefined>>;
  /** The sidecar script to run; unset: the sidecar package's own built entry. */
  readonly sidecarEntry?: string;
  readonly allowRoots: readonly string[];
  readonly defaultCwd: string;
  readonly toolTimeoutMs: number | undefined;
  readonly info: HostInfo;
  readonly logger: HostLogger;
  /** The same log in pino's call shape, for the runtime's modules. */
  readonly runtimeLogger: RuntimeLogger;
}

/** Builds the core behind the HTTP layer: the real one (`hostCore.ts`) or a test's. */
export type ServiceFactory = (context: ServiceContext) => Promise<HostService>;

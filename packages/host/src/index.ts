export {
  HOST_LOCK_FILE,
  HostAlreadyRunningError,
  type HostLockInfo,
  readHostLock,
} from './config/hostLock.ts';
export {
  DATA_DIR_VARIABLE,
  defaultDataDir,
  defaultSessionCwd,
  type InstallationContext,
  platformDataDir,
  REPOSITORY_DATA_DIR,
  RUNS_FROM_SOURCES,
} from './config/installation.ts';
export {
  DEFAULT_PORT,
  isLoopbackHost,
  parseServeArgs,
  SERVE_USAGE,
  type ServeArgs,
  type ServeOptions,
} from './config/serveOptions.ts';
export { rotateToken } from './config/tokenFile.ts';
export type { EventStream } from './events/eventStream.ts';
export { HostError } from './hostError.ts';
export { createHostApp, type HostAppOptions } from './http/hostApp.ts';
export { PortInUseError } from './http/httpServer.ts';
export { createFileAndStderrLogger, createMemoryLogger, type HostLogger, silentLogger } from './logging/hostLogger.ts';
export { type RunningHost, type StartHostOptions, startHost, WEB_DIST } from './serve.ts';
export type { HostService } from './service/hostService.ts';
export type { ServiceContext, ServiceFactory } from './service/serviceFactory.ts';

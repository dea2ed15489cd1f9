export { claudeConfigDir } from './config/claudeConfigDir.ts';
export { claudeHistorySdk } from './fork/configDirSessionSdk.ts';
export type { ClaudeHistorySdk } from './fork/sessionSdk.ts';
export { projectKey } from './goals/goalTranscript.ts';
export * from './process/index.ts';
/** The tool call the live projection emits, for the host's reader of Claude Code transcripts (same cards). */
export {
  buildToolCallPayload,
  createToolCallState,
  type ToolCallState,
  toolResultView,
} from './projection/toolCallPayload.ts';
export type { ClaudeQuery, QueryFactory, QueryParams } from './runtime/claudeQuery.ts';
export type { TurnIdentityRequest, TurnIdentityResolver } from './runtime/providerTurnIdentity.ts';
export { QueryShutdownTimeoutError } from './runtime/queryGeneration.ts';
export { DEFAULT_RUNTIME_TIMERS, type RuntimeTimers, runtimeTimersFromEnv } from './runtime/runtimeDefaults.ts';
export { SessionRuntime, type SessionRuntimeOptions } from './runtime/sessionRuntime.ts';
export { forkHandlers } from './server/forkHandlers.ts';
export { createSessionFactory } from './server/sessionFactory.ts';
export {
  type SidecarServer,
  type SidecarServerOptions,
  type StatelessHandlers,
  startSidecarServer,
} from './server/sidecarServer.ts';
export type { RequestContext, SessionFactory, SidecarSession } from './shared/sidecarSession.ts';
export { isTestDriverEnabled, TEST_DRIVER_ENV, TestDriverSession } from './testDriver/testDriverSession.ts';

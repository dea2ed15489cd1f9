import { isPositiveSafeInteger, type StartPayload } from '@outrigger/protocol';
import { loadedClaudeAgentSdk } from '../config/claudeAgentSdk.ts';
import { type ResolvedStartOptions, resolveStartOptions, type StartOptionsContext } from '../config/startOptions.ts';
import { DEFAULT_CONTINUATION_START_TIMEOUT_MS } from '../continuation/backgroundTaskLifecycle.ts';
import { sessionSdkForConfigDir } from '../fork/configDirSessionSdk.ts';
import { projectDir } from '../fork/sessionSdk.ts';
import { resolveTurnByCorrelationId } from '../fork/turnBindingResolution.ts';
import type { QueryFactory } from './claudeQuery.ts';
import { DEFAULT_IDENTITY_RETRY, type IdentityRetryPolicy, type TurnIdentityResolver } from './providerTurnIdentity.ts';

/** The real SDK `query()`; a runtime that uses it loads the SDK (`loadClaudeAgentSdk`) before its first Query. */
export const sdkQueryFactory: QueryFactory = (params) => loadedClaudeAgentSdk().query(params);

/** The live identity barrier's transcript read, in the config dir the child writes to. */
export const resolveTurnIdentityFromTranscript: TurnIdentityResolver = (request) => resolveTurnByCorrelationId(request);

export interface SessionTitleRequest {
  providerSessionId: string;
  cwd: string;
  claudeConfigDir: string | undefined;
}

export type SessionTitleReader = (request: SessionTitleRequest) => Promise<string | undefined>;

/** The session's title as Claude Code keeps it: a custom title, else its summary. */
export const readSessionTitleFromTranscript: SessionTitleReader = async (request) => {
  const info = await sessionSdkForConfigDir(request.claudeConfigDir).getSessionInfo(
    request.providerSessionId,
    projectDir(request.cwd),
  );
  return info?.customTitle || info?.summary || undefined;
};

/** Turns the `start` payload into the create-time Query options (config/ owns the rules). */
export type StartOptionsResolver = (
  payload: StartPayload,
  context: StartOptionsContext,
) => Promise<ResolvedStartOptions>;

export const resolveStartOptionsFromConfig: StartOptionsResolver = resolveStartOptions;

export interface RuntimeTimers {
  /** How long a turn that streamed its final answer may wait for its result before it fails. */
  resultTimeoutMs: number;
  identityRetry: IdentityRetryPolicy;
  /** Budget for `close` and retirement: the transport is closed at once, then the consumer gets this long. */
  closeDrainTimeoutMs: number;
  /** How long a reserved background continuation may wait for its first output. */
  continuationStartTimeoutMs: number;
  /** How long an idle session keeps its Query (and its Claude Code child) alive for the next turn. */
  idleQueryTtlMs: number;
  /** How long a session must go without a new prompt after a root result before its context and title are read. */
  settledRefreshQuietMs: number;
  /** Budget of an interrupt the sidecar asks for outside a cancel (guidance without its own budget, a stall). */
  interruptTimeoutMs: number;
  /** Silence of an open API stream after which `turn_stalled` is published, and again after each such period. */
  streamStallWarningMs: number;
  /** Silence of an open API stream after which the turn is interrupted and fails with `stream_stalled`. */
  streamStallBudgetMs: number;
}

export const DEFAULT_RUNTIME_TIMERS: RuntimeTimers = {
  resultTimeoutMs: 60_000,
  identityRetry: DEFAULT_IDENTITY_RETRY,
  closeDrainTimeoutMs: 8_000,
  continuationStartTimeoutMs: DEFAULT_CONTINUATION_START_TIMEOUT_MS,
  idleQueryTtlMs: 10 * 60_000,
  settledRefreshQuietMs: 250,
  interruptTimeoutMs: 10_000,
  streamStallWarningMs: 15_000,
  streamStallBudgetMs: 120_000,
};

/** The timers a host may set in the sidecar's environment, and the variable of each. */
const TIMER_VARIABLES = {
  resultTimeoutMs: 'OUTRIGGER_SIDECAR_RESULT_TIMEOUT_MS',
  continuationStartTimeoutMs: 'OUTRIGGER_SIDECAR_CONTINUATION_TIMEOUT_MS',
  idleQueryTtlMs: 'OUTRIGGER_SIDECAR_IDLE_QUERY_TTL_MS',
  settledRefreshQuietMs: 'OUTRIGGER_SIDECAR_SETTLED_REFRESH_QUIET_MS',
  interruptTimeoutMs: 'OUTRIGGER_SIDECAR_INTERRUPT_TIMEOUT_MS',
  streamStallWarningMs: 'OUTRIGGER_SIDECAR_STREAM_STALL_WARNING_MS',
  streamStallBudgetMs: 'OUTRIGGER_SIDECAR_STREAM_STALL_BUDGET_MS',
} as const satisfies Partial<Record<keyof RuntimeTimers, string>>;

/**
 * The runtime timers with the overrides of `TIMER_VARIABLES` from the environment: the result watchdog,
 * the continuation start deadline, the idle Query TTL, the quiet period before the settled refresh, the
 * budget of the sidecar's own interrupts and the stream-stall warning period and budget (positive integer
 * milliseconds; anything else is ignored).
 */
export function runtimeTimersFromEnv(env: NodeJS.ProcessEnv): RuntimeTimers {
  const timers = { ...DEFAULT_RUNTIME_TIMERS };
  for (const [timer, variable] of Object.entries(TIMER_VARIABLES) as [keyof typeof TIMER_VARIABLES, string][]) {
    timers[timer] = positiveMs(env[variable]) ?? DEFAULT_RUNTIME_TIMERS[timer];
  }
  return timers;
}

function positiveMs(value: string | undefined): number | undefined {
  const ms = Number(value);
  return isPositiveSafeInteger(ms) ? ms : undefined;
}

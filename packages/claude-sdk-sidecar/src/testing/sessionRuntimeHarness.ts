import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type CancelResult,
  type EmitEvent,
  parseRequestPayload,
  type StartPayload,
  turnTerminalEventTypes,
} from '@outrigger/protocol';
import { ProviderTurnDiagnostics } from '../diagnostics/providerTurnDiagnostics.ts';
import { TurnBindingResolutionError } from '../fork/turnBindingResolution.ts';
import type { TurnIdentityResolver } from '../runtime/providerTurnIdentity.ts';
import { SessionRuntime, type SessionRuntimeOptions } from '../runtime/sessionRuntime.ts';
import { type FakeClaudeQuery, fakeQueryFactory } from './fakeClaudeQuery.ts';

/** Test support for SessionRuntime on a FakeClaudeQuery: recorded events and bounded waits. */

export interface Recorded {
  type: string;
  payload: Record<string, unknown>;
}

export const TERMINALS: ReadonlySet<string> = new Set(turnTerminalEventTypes);

/** Every wait of the harness fails with what it saw after this long. */
const WAIT_MS = 2_000;

export function startPayload(fields: Record<string, unknown> = {}): StartPayload {
  const parsed = parseRequestPayload('start', { agentSessionId: 's1', cwd: tmpdir(), ...fields });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

export function execPayload(turnId: string, fields: Record<string, unknown> = {}) {
  const parsed = parseRequestPayload('exec', {
    agentSessionId: 's1',
    turnId,
    prompt: `prompt of ${turnId}`,
    ...fields,
  });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
}

export function cancelPayload(turnId: string) {
  return { agentSessionId: 's1', turnId, interruptTimeoutMs: 100, drainTimeoutMs: 100 };
}

/** The answer to a cancel that found no turn of its own to stop (absent, mismatch): nothing is known of it. */
export function notCanceled(disposition: 'absent' | 'mismatch', turnId: string): CancelResult {
  return { canceled: false, disposition, turnId, providerTurnId: '', dispatchPhase: 'unknown', queryRetired: false };
}

/**
 * The answer to a cancel that ended a turn Claude Code had not accepted: it has no provider identity.
 * `how` says whether the Query was retired for it or goes on (never handed over, or withdrawn from its queue).
 */
export function canceledBeforeAcceptance(
  turnId: string,
  dispatchPhase: CancelResult['dispatchPhase'],
  how: 'query retired' | 'query goes on',
): CancelResult {
  const queryRetired = how === 'query retired';
  return { canceled: true, disposition: 'pre_accept', turnId, providerTurnId: '', dispatchPhase, queryRetired };
}

/** The answer to a cancel that stopped a turn Claude Code had accepted as `providerTurnId`: the Query is retired. */
export function canceledInProvider(
  turnId: string,
  providerTurnId: string,
  dispatchPhase: CancelResult['dispatchPhase'],
): CancelResult {
  return { canceled: true, disposition: 'provider_active', turnId, providerTurnId, dispatchPhase, queryRetired: true };
}

/** The transcript never has the turn: identity can only come from the echo. */
export const absent: TurnIdentityResolver = async () => {
  throw new TurnBindingResolutionError('absent', {
    transcriptMessageCount: 0,
    rootUserMessageCount: 0,
    matchingRootUserMessageCount: 0,
    latestRootUserMessageId: undefined,
  });
};

export type Harness = ReturnType<typeof harness>;

export function harness(options: Partial<SessionRuntimeOptions> = {}) {
  const events: Recorded[] = [];
  const emit: EmitEvent = (type, payload) => {
    events.push({ type, payload: payload as Record<string, unknown> });
  };
  const { factory, queries } = fakeQueryFactory();
  const runtime = new SessionRuntime({
    payload: startPayload(),
    emit,
    processEnv: { CLAUDE_CONFIG_DIR: join(tmpdir(), 'outrigger-no-such-config') },
    queryFactory: factory,
    resolveTurnIdentity: absent,
    resolveStartOptions: async () => ({
      queryOptions: {},
      permissionMode: 'default',
      basePermissionMode: 'default',
      planMode: false,
      canBypassPermissions: true,
    }),
    readSessionTitle: async () => undefined,
    providerTurnDiagnostics: new ProviderTurnDiagnostics({ scheduleTimer: () => ({ unref() {}, cancel() {} }) }),
    ...options,
    timers: {
      resultTimeoutMs: 60_000,
      closeDrainTimeoutMs: 1_000,
      identityRetry: { initialDelayMs: 1, maxDelayMs: 5, deadlineMs: 300 },
      settledRefreshQuietMs: 5,
      ...options.timers,
    },
  });
  const query = (index = 0): FakeClaudeQuery => {
    const found = queries[index];
    if (!found) throw new Error(`no Query #${index} was created`);
    return found;
  };
  const poll = async <T>(probe: () => T | undefined, description: string): Promise<T> => {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const found = probe();
      if (found !== undefined) return found;
      if (Date.now() > deadline) {
        throw new Error(`timed out waiting for ${description}; saw ${events.map((event) => event.type).join(', ')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const nextQuery = (index: number): Promise<FakeClaudeQuery> => poll(() => queries[index], `Query #${index}`);
  const waitFor = (predicate: (event: Recorded) => boolean, description: string): Promise<Recorded> =>
    poll(() => events.find(predicate), description);
  const terminalOf = (turnId: string) =>
    waitFor((event) => TERMINALS.has(event.type) && event.payload.turnId === turnId, `the terminal of ${turnId}`);
  const indexOf = (predicate: (event: Recorded) => boolean) => events.findIndex(predicate);
  const eventsOf = (type: string) => events.filter((event) => event.type === type);
  return { runtime, events, queries, query, nextQuery, poll, waitFor, terminalOf, indexOf, eventsOf };
}

/** Starts the session and one turn; resolves with the correlation uuid of its prompt. */
export async function startedWithTurn(h: Harness, turnId = 't1', fields: Record<string, unknown> = {}) {
  await h.runtime.start();
  await h.runtime.exec(execPayload(turnId, fields));
  const [prompt] = await h.query().waitForPrompts(1);
  assert.ok(prompt?.uuid, 'the prompt carries a correlation uuid');
  return prompt.uuid;
}

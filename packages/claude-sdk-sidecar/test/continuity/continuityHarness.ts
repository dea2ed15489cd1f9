import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type MockAnthropic, type MockRule, startMockAnthropic } from '@outrigger/mock-anthropic';
import { type ClaudeTestHome, createClaudeTestHome } from '@outrigger/mock-anthropic/testing';
import type { SidecarEvent } from '@outrigger/protocol';
import { type SpawnedSidecar, spawnSidecar } from '../../src/testing/spawnSidecar.ts';
import { isTerminalOf } from '../../src/testing/turnEvents.ts';

/*
 * Shared plumbing of the continuity acceptance tests: one mock-anthropic, one isolated Claude home and
 * one real sidecar process per test file, and the event bookkeeping the assertions need. Every wait
 * is bounded and names what it waited for.
 */

const TURN_TIMEOUT_MS = 60_000;

export interface ContinuityRig {
  readonly mock: MockAnthropic;
  readonly home: ClaudeTestHome;
  readonly sidecar: SpawnedSidecar;
  /** Closes the session(s), stops the process (killing it if it hangs), stops the mock, removes the home. */
  dispose(agentSessionIds: readonly string[]): Promise<void>;
}

export interface ContinuityRigOptions {
  rules: MockRule[];
  /** Extra variables of the sidecar's own env (and so of the Claude Code child env). */
  env?: Record<string, string>;
}

/** Starts mock-anthropic, an isolated Claude home and the real sidecar process on that home's env. */
export async function startContinuityRig(options: ContinuityRigOptions): Promise<ContinuityRig> {
  const mock = await startMockAnthropic({ rules: options.rules });
  const home = await createClaudeTestHome({ baseUrl: mock.url, env: { IS_SANDBOX: '1', ...options.env } });
  const sidecar = await spawnSidecar({ env: home.env, cwd: home.cwd, requestTimeoutMs: 30_000 }).catch(
    async (error: unknown) => {
      await Promise.all([mock.close(), home.cleanup()]);
      throw error;
    },
  );
  return {
    mock,
    home,
    sidecar,
    dispose: async (agentSessionIds) => {
      try {
        for (const agentSessionId of agentSessionIds) {
          await sidecar.request('close', { agentSessionId }, { timeoutMs: 15_000 }).catch(() => undefined);
        }
      } finally {
        await sidecar.stop({ timeoutMs: 10_000 });
        await mock.close();
        await home.cleanup();
      }
    },
  };
}

/** Starts `agentSessionId` in the rig's Claude home with every tool allowed; resolves with the start result. */
export function startBypassSession<T = unknown>(rig: ContinuityRig, agentSessionId: string): Promise<T> {
  return rig.sidecar.request<T>('start', { agentSessionId, cwd: rig.home.cwd, permissionModeId: 'bypassPermissions' });
}

export function turnIdOf(event: SidecarEvent): string | undefined {
  const turnId = (event.payload as { turnId?: unknown } | undefined)?.turnId;
  return typeof turnId === 'string' ? turnId : undefined;
}

export function eventsOfTurn(events: readonly SidecarEvent[], turnId: string): SidecarEvent[] {
  return events.filter((event) => turnIdOf(event) === turnId);
}

function terminalsOf(events: readonly SidecarEvent[], turnId: string): SidecarEvent[] {
  return events.filter(isTerminalOf(turnId));
}

/** The one terminal event of a turn; fails naming every terminal seen when there is not exactly one. */
export function onlyTerminalOf(events: readonly SidecarEvent[], turnId: string): SidecarEvent {
  const terminals = terminalsOf(events, turnId);
  assert.equal(
    terminals.length,
    1,
    `turn ${turnId} must end exactly once; got ${terminals.map((event) => JSON.stringify(event.payload)).join(' | ') || 'no terminal'}`,
  );
  return terminals[0] as SidecarEvent;
}

/** Every turn that published an event in `events` ended exactly once; a failure lists that turn's events. */
export function assertEveryTurnEndedOnce(events: readonly SidecarEvent[]): void {
  for (const turnId of new Set(events.map(turnIdOf).filter((id): id is string => id !== undefined))) {
    assert.equal(
      terminalsOf(events, turnId).length,
      1,
      `turn ${turnId} ended exactly once (${eventsOfTurn(events, turnId)
        .map((event) => event.type)
        .join(', ')})`,
    );
  }
}

/** Concatenated `assistant_completed` text of a turn. */
export function assistantTextOf(events: readonly SidecarEvent[], turnId: string): string {
  return eventsOfTurn(events, turnId)
    .flatMap((event) => (event.type === 'assistant_completed' ? [event.payload.content] : []))
    .join('\n');
}

export async function waitForTerminal(
  sidecar: SpawnedSidecar,
  turnId: string,
  description: string,
  timeoutMs = TURN_TIMEOUT_MS,
): Promise<SidecarEvent> {
  return sidecar.waitForEvent(isTerminalOf(turnId), {
    timeoutMs,
    description: `the terminal event of ${description} (turn ${turnId})`,
  });
}

/** A model reply's Bash call that runs `python3 -c "sleep"` for `seconds` in the background. */
export function backgroundBash(seconds: number, description: string) {
  return {
    type: 'tool_use' as const,
    name: 'Bash',
    input: {
      command: `python3 -c "import time; time.sleep(${seconds}); print('${description} done')"`,
      description,
      run_in_background: true,
    },
  };
}

export interface ExecutedTurn {
  turnId: string;
  /** Index in `sidecar.events` where this turn's exec began. */
  from: number;
  terminal: SidecarEvent;
}

/** Sends `exec` and waits for the turn's terminal event. */
export async function runTurn(
  sidecar: SpawnedSidecar,
  agentSessionId: string,
  prompt: string,
  fields: Record<string, unknown> = {},
): Promise<ExecutedTurn> {
  const turnId = `turn-${randomUUID()}`;
  const from = sidecar.events.length;
  await sidecar.request('exec', { agentSessionId, turnId, prompt, ...fields });
  const terminal = await waitForTerminal(sidecar, turnId, `"${prompt}"`);
  return { turnId, from, terminal };
}

/** The providerTurnId a turn was bound to; fails when the sidecar never published one. */
export function providerTurnIdOf(events: readonly SidecarEvent[], turnId: string): string {
  const identity = eventsOfTurn(events, turnId).find((event) => event.type === 'provider_turn_identity_resolved');
  assert.ok(
    identity?.type === 'provider_turn_identity_resolved',
    `turn ${turnId} never got provider_turn_identity_resolved`,
  );
  return identity.payload.providerTurnId;
}

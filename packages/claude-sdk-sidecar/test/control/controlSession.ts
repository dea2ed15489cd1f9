import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type ClaudeTestHome, createClaudeTestHome } from '@outrigger/mock-anthropic/testing';
import { isTerminalOf } from '../../src/testing/turnEvents.ts';
import { type Answer, type ControlSidecar, type LoggedLine, startControlSidecar } from './controlSidecar.ts';
import { type ScriptedModel, startScriptedModel } from './scriptedModel.ts';

/** Budgets generous enough for a loaded 2-core box; the cancel itself is expected to take milliseconds. */
export const CANCEL_BUDGETS = { interruptTimeoutMs: 5_000, drainTimeoutMs: 5_000 } as const;

export interface InteractionAnswer {
  readonly action: string;
  readonly optionId: string;
  readonly payload: Record<string, unknown>;
}

export const ALLOW: InteractionAnswer = { action: 'allow', optionId: 'allow', payload: {} };

/**
 * One real sidecar process with one started Agent Session on real Claude Code, against a scripted model
 * in an isolated Claude home. Every test of a file shares it; each test uses its own turn ids.
 */
export interface ControlSession {
  readonly sidecar: ControlSidecar;
  readonly model: ScriptedModel;
  readonly home: ClaudeTestHome;
  readonly agentSessionId: string;
  exec(turnId: string, prompt: string): Promise<Answer>;
  cancel(turnId: string, budgets?: { interruptTimeoutMs: number; drainTimeoutMs: number }): Promise<Answer>;
  submit(turnId: string, requestId: string, answer: InteractionAnswer): Promise<Answer>;
  disposition(turnId: string, requestId: string, expected: InteractionAnswer): Promise<Answer>;
  /** Events of `type` for `turnId`, in order. */
  eventsOf(type: string, turnId: string): LoggedLine[];
  /** The terminal events (turn_completed, turn_failed, turn_canceled) published for `turnId`, in order. */
  terminalsOf(turnId: string): LoggedLine[];
  waitForEvent(type: string, turnId: string, options?: { timeoutMs?: number; fromIndex?: number }): Promise<LoggedLine>;
  /** Resolves with the turn's first terminal event (turn_completed, turn_failed or turn_canceled). */
  waitForTerminal(turnId: string, timeoutMs?: number): Promise<LoggedLine>;
  close(): Promise<void>;
}

/** A fresh turn id that says which step of a test it belongs to. */
export const newTurnId = (label: string): string => `${label}-${randomUUID()}`;

export function assertOk(answer: Answer, request: string): void {
  assert.equal(answer.type, 'ok', `${request} answered error: ${JSON.stringify(answer.payload)}`);
}

/** Waits for the turn's approval request and allows it; resolves with the request event. */
export async function allowApproval(session: ControlSession, turnId: string): Promise<LoggedLine> {
  const approval = await session.waitForEvent('approval_requested', turnId);
  assertOk(await session.submit(turnId, String(approval.payload.requestId), ALLOW), 'submit_interactive');
  return approval;
}

export async function openControlSession(
  options: {
    /** The `env` of the `start` payload. */
    startEnv?: Record<string, string>;
    /** Variables of the sidecar's own environment (runtime timers, say), over the Claude home's. */
    sidecarEnv?: Record<string, string>;
  } = {},
): Promise<ControlSession> {
  const model = await startScriptedModel();
  const home = await createClaudeTestHome({ baseUrl: model.url });
  let sidecar: ControlSidecar | undefined;
  const cleanup = async (): Promise<void> => {
    try {
      await sidecar?.stop();
    } finally {
      await model.close();
      await home.cleanup();
    }
  };
  try {
    sidecar = await startControlSidecar({ env: { ...home.env, ...options.sidecarEnv } });
    const agentSessionId = `control-${randomUUID()}`;
    const started = await sidecar.request(
      'start',
      { agentSessionId, cwd: home.cwd, env: options.startEnv ?? {}, permissionModeId: 'default' },
      { timeoutMs: 30_000 },
    );
    if (started.type !== 'ok') throw new Error(`start failed: ${JSON.stringify(started.payload)}`);
    return bindSession(sidecar, model, home, agentSessionId, cleanup);
  } catch (error) {
    await cleanup();
    throw error;
  }
}

function bindSession(
  sidecar: ControlSidecar,
  model: ScriptedModel,
  home: ClaudeTestHome,
  agentSessionId: string,
  close: () => Promise<void>,
): ControlSession {
  const isTurnEvent = (type: string, turnId: string) => (line: LoggedLine) =>
    line.id === undefined && line.type === type && line.payload.turnId === turnId;
  return {
    sidecar,
    model,
    home,
    agentSessionId,
    exec: (turnId, prompt) => sidecar.request('exec', { agentSessionId, turnId, prompt }),
    cancel: (turnId, budgets = CANCEL_BUDGETS) =>
      sidecar.request('cancel', { agentSessionId, turnId, ...budgets }, { timeoutMs: 20_000 }),
    submit: (turnId, requestId, answer) =>
      sidecar.request('submit_interactive', { agentSessionId, turnId, requestId, ...answer }),
    disposition: (turnId, requestId, expected) =>
      sidecar.request('interactive_disposition', { agentSessionId, turnId, requestId, ...expected }),
    eventsOf: (type, turnId) => sidecar.log.filter(isTurnEvent(type, turnId)),
    terminalsOf: (turnId) => sidecar.log.filter(isTerminalOf(turnId)),
    waitForEvent: (type, turnId, wait) => sidecar.waitFor(isTurnEvent(type, turnId), `${type} of ${turnId}`, wait),
    waitForTerminal: (turnId, timeoutMs = 30_000) =>
      sidecar.waitFor(isTerminalOf(turnId), `a terminal event of ${turnId}`, { timeoutMs }),
    close,
  };
}

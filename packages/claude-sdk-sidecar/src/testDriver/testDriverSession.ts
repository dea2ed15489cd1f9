import { randomUUID } from 'node:crypto';
import type {
  ApplySettingsPayload,
  CancelPayload,
  CancelResult,
  EmitEvent,
  ExecPayload,
  GuidePayload,
  InteractiveDispositionPayload,
  InteractiveResult,
  StartPayload,
  StartResult,
  StopTaskResult,
  SubmitInteractivePayload,
} from '@outrigger/protocol';
import { canBypassPermissions } from '../config/permissionMode.ts';
import {
  approvalDecision,
  approvalOptions,
  DEFAULT_DENY_MESSAGE,
  denyMessage,
  isRefusal,
} from '../interaction/approvalOptions.ts';
import { identifyQuestions } from '../interaction/askUserQuestion.ts';
import { QUESTION_DECLINED } from '../interaction/canUseTool.ts';
import { EXIT_PLAN_MODE_REJECTED, exitPlanModeOptions, exitPlanModeResult } from '../interaction/exitPlanMode.ts';
import {
  InteractionSupersededError,
  InteractiveRegistry,
  type InteractiveSubmission,
} from '../interaction/interactiveRegistry.ts';
import { resumeCursor } from '../shared/resumeCursor.ts';
import { contentText } from '../shared/sdkValues.ts';
import type { SidecarSession } from '../shared/sidecarSession.ts';

/** Set in the sidecar's own environment to run every session on the scripted driver instead of Claude Code. */
export const TEST_DRIVER_ENV = 'TUTTI_CLAUDE_SDK_SIDECAR_TEST_DRIVER';

export function isTestDriverEnabled(env: NodeJS.ProcessEnv): boolean {
  return env[TEST_DRIVER_ENV] === '1';
}

interface DriverTurn {
  turnId: string;
  providerTurnId: string;
  prompt: string;
  phase: CancelResult['dispatchPhase'];
  settled: boolean;
}

interface ScriptedInteraction {
  kind: 'approval' | 'user_input';
  toolName: string;
  toolCallId: string;
  input: Record<string, unknown>;
  options: ReturnType<typeof approvalOptions>;
  /** The error the turn fails with when the answer refuses, or undefined when it accepts. */
  refusal(submission: InteractiveSubmission): string | undefined;
  acceptedText: string;
}

/**
 * The scripted session of test-driver mode (reference §5.3): no SDK, no network. A prompt is echoed back,
 * unless it names one of the keywords `approval`, `ask-user` or `exit-plan`, which first ask the host
 * the matching question and finish according to the answer given through `submit_interactive`.
 */
export class TestDriverSession implements SidecarSession {
  readonly #emit: EmitEvent;
  readonly #providerSessionId: string;
  readonly #registry = new InteractiveRegistry();
  /** The bypass gate of the real runtime: ExitPlanMode offers bypass only where Claude Code would allow it. */
  readonly #canBypassPermissions: boolean;
  #active: DriverTurn | undefined;
  #settledCount = 0;
  #closed = false;

  constructor(payload: StartPayload, emit: EmitEvent, processEnv: NodeJS.ProcessEnv = process.env) {
    this.#emit = emit;
    this.#canBypassPermissions = canBypassPermissions({ euid: process.geteuid?.(), env: processEnv });
    this.#providerSessionId = payload.resumeCursor?.resume || payload.providerSessionId || randomUUID();
  }

  async start(): Promise<StartResult> {
    this.#emit('session_started', this.#snapshot());
    return { providerSessionId: this.#providerSessionId };
  }

  async exec(payload: ExecPayload): Promise<void> {
    const turn: DriverTurn = {
      turnId: payload.turnId,
      providerTurnId: randomUUID(),
      prompt: payload.prompt || contentText(payload.content),
      phase: 'dispatched',
      settled: false,
    };
    if (this.#closed) {
      this.#emit('turn_failed', { turnId: turn.turnId, error: 'Claude SDK query is closed' });
      return;
    }
    this.#active = turn;
    setImmediate(() => void this.#run(turn));
  }

  async guide(payload: GuidePayload): Promise<void> {
    const turn = this.#active;
    if (!turn || turn.settled) throw new Error('Claude SDK guidance requires an active turn');
    const text = `Echo: ${payload.prompt || contentText(payload.content)}`;
    this.#emit('guidance_interrupted', { turnId: turn.turnId });
    this.#emit('assistant_delta', {
      turnId: turn.turnId,
      providerTurnId: turn.providerTurnId,
      messageId: messageId(turn, 'guide'),
      content: text,
      snapshot: text,
    });
  }

  async cancel(payload: CancelPayload): Promise<CancelResult> {
    const turn = this.#active;
    const turnId = payload.turnId || turn?.turnId || '';
    if (!turn || turn.settled || turn.turnId !== turnId) {
      return { canceled: false, disposition: 'absent', turnId, providerTurnId: '', dispatchPhase: 'unknown' };
    }
    const dispatchPhase = turn.phase;
    this.#settle(turn);
    this.#registry.rejectAll('Tool use aborted');
    this.#emit('turn_canceled', { turnId, providerTurnId: turn.providerTurnId });
    return {
      canceled: true,
      disposition: 'provider_active',
      turnId,
      providerTurnId: turn.providerTurnId,
      dispatchPhase,
    };
  }

  async stopTask(): Promise<StopTaskResult> {
    return { stopped: false };
  }

  async submitInteractive(payload: SubmitInteractivePayload): Promise<InteractiveResult> {
    return this.#registry.submit(payload.turnId, payload.requestId, payload.action, payload.optionId, payload.payload);
  }

  async interactiveDisposition(payload: InteractiveDispositionPayload): Promise<InteractiveResult> {
    return this.#registry.disposition(
      payload.turnId,
      payload.requestId,
      payload.action,
      payload.optionId,
      payload.payload,
    );
  }

  async applySettings(_payload: ApplySettingsPayload): Promise<void> {
    this.#emit('session_state', this.#snapshot());
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#registry.rejectAll('Claude SDK session closed');
  }

  async #run(turn: DriverTurn): Promise<void> {
    if (turn.settled) return;
    this.#emit('provider_turn_identity_resolved', { turnId: turn.turnId, providerTurnId: turn.providerTurnId });
    turn.phase = 'streaming';
    const interaction = scriptedInteraction(turn.prompt, this.#canBypassPermissions);
    if (!interaction) {
      const text = `Echo: ${turn.prompt}`;
      this.#emit('assistant_delta', {
        turnId: turn.turnId,
        providerTurnId: turn.providerTurnId,
        messageId: messageId(turn, 'answer'),
        content: text,
        snapshot: text,
      });
      this.#complete(turn, text);
      return;
    }
    const requestId = randomUUID();
    turn.phase = interaction.kind === 'approval' ? 'waiting_approval' : 'waiting_input';
    const answer = this.#registry.register(turn.turnId, requestId);
    this.#emit(interaction.kind === 'approval' ? 'approval_requested' : 'user_input_requested', {
      turnId: turn.turnId,
      requestId,
      toolCallId: interaction.toolCallId,
      toolName: interaction.toolName,
      input: interaction.input,
      options: interaction.options,
      toolCall: {
        toolCallId: interaction.toolCallId,
        name: interaction.toolName,
        title: interaction.toolName,
        toolName: interaction.toolName,
        input: interaction.input,
      },
    });
    let submission: InteractiveSubmission;
    try {
      submission = await answer;
    } catch (error) {
      if (error instanceof InteractionSupersededError) return;
      throw error;
    }
    if (turn.settled) return;
    this.#emit(interaction.kind === 'approval' ? 'approval_resolved' : 'user_input_resolved', {
      turnId: turn.turnId,
      requestId,
      action: submission.action,
      optionId: submission.optionId,
      payload: submission.payload,
    });
    turn.phase = 'streaming';
    const refusal = interaction.refusal(submission);
    if (refusal !== undefined) {
      this.#settle(turn);
      this.#emit('turn_failed', { turnId: turn.turnId, providerTurnId: turn.providerTurnId, error: refusal });
      this.#emit('session_state', this.#snapshot());
      return;
    }
    this.#complete(turn, interaction.acceptedText);
  }

  #complete(turn: DriverTurn, text: string): void {
    this.#emit('assistant_completed', {
      turnId: turn.turnId,
      providerTurnId: turn.providerTurnId,
      messageId: messageId(turn, 'answer'),
      content: text,
    });
    this.#settle(turn);
    this.#emit('turn_completed', { turnId: turn.turnId, providerTurnId: turn.providerTurnId, stopReason: 'end_turn' });
    this.#emit('session_state', this.#snapshot());
  }

  #settle(turn: DriverTurn): void {
    turn.settled = true;
    turn.phase = 'terminal';
    this.#settledCount += 1;
    if (this.#active === turn) this.#active = undefined;
  }

  #snapshot() {
    return {
      providerSessionId: this.#providerSessionId,
      resumeCursor: resumeCursor(this.#providerSessionId, undefined, this.#settledCount),
    };
  }
}

function scriptedInteraction(prompt: string, canBypass: boolean): ScriptedInteraction | undefined {
  if (prompt.includes('approval')) {
    return {
      kind: 'approval',
      toolName: 'Bash',
      toolCallId: 'test-approval-tool',
      input: { command: 'touch approval.txt' },
      options: approvalOptions(true),
      refusal: (submission) =>
        approvalDecision(submission) === 'deny' ? denyMessage(submission, DEFAULT_DENY_MESSAGE) : undefined,
      acceptedText: 'Approval accepted.',
    };
  }
  if (prompt.includes('ask-user')) {
    const { published } = identifyQuestions({
      questions: [
        {
          question: 'Pick one',
          header: 'Choice',
          options: [{ label: 'A', description: 'Alpha' }],
          multiSelect: false,
        },
      ],
    });
    return {
      kind: 'user_input',
      toolName: 'AskUserQuestion',
      toolCallId: 'test-ask-user-tool',
      input: published,
      options: [],
      refusal: (submission) => (isRefusal(submission) ? denyMessage(submission, QUESTION_DECLINED) : undefined),
      acceptedText: 'Question answered.',
    };
  }
  if (prompt.includes('exit-plan')) {
    const input = { plan: '1. Inspect\n2. Implement\n3. Verify' };
    return {
      kind: 'user_input',
      toolName: 'ExitPlanMode',
      toolCallId: 'test-exit-plan-tool',
      input,
      options: exitPlanModeOptions(canBypass),
      refusal: (submission) =>
        exitPlanModeResult(submission, input, canBypass).behavior === 'allow' ? undefined : EXIT_PLAN_MODE_REJECTED,
      acceptedText: 'Plan captured.',
    };
  }
  return undefined;
}

function messageId(turn: DriverTurn, part: string): string {
  return `claude-sdk:assistant:${turn.turnId}:live:${part}`;
}

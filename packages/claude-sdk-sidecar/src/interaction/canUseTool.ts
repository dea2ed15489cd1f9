import { randomUUID } from 'node:crypto';
import type { CanUseTool, PermissionResult, PermissionUpdate } from '@anthropic-ai/claude-agent-sdk';
import type { EmitEvent } from '@outrigger/protocol';
import {
  approvalDecision,
  approvalOptions,
  DEFAULT_DENY_MESSAGE,
  denyMessage,
  type InteractionOption,
  isRefusal,
  sessionGrant,
} from './approvalOptions.ts';
import { answersFromPayload, identifyQuestions } from './askUserQuestion.ts';
import { exitPlanModeOptions, exitPlanModeResult } from './exitPlanMode.ts';
import {
  InteractionSupersededError,
  type InteractiveRegistry,
  type InteractiveSubmission,
  TOOL_USE_ABORTED,
} from './interactiveRegistry.ts';
import type { SessionPermissionLedger } from './sessionPermissionLedger.ts';

export const QUESTION_DECLINED = 'User declined to answer the question';
export const IDENTITY_UNCONFIRMED = 'Claude provider turn identity could not be confirmed';

export type InteractionPhase = 'waiting_approval' | 'waiting_input';

export interface CanUseToolDeps {
  readonly registry: InteractiveRegistry;
  readonly ledger: SessionPermissionLedger;
  readonly emit: EmitEvent;
  /**
   * The canonical turn that owns this tool use (`agentId` is set for tool uses of a sub-agent). When no
   * turn is open (background work asking after its turn settled) the resolver opens a synthetic one: a
   * request is never refused for want of a turn.
   */
  resolveTurnId(toolUseId: string | undefined, agentId?: string): string;
  /** Resolves once the turn's provider identity is bound; rejects when it cannot be or `signal` aborts. */
  awaitTurnIdentity(turnId: string, phase: InteractionPhase, signal: AbortSignal): Promise<void>;
  getPermissionMode(): string;
  readonly canBypassPermissions: boolean;
  /** False once the Query generation this callback belongs to was revoked (cancel, close, retirement). */
  isGenerationActive(): boolean;
}

type SdkOptions = Parameters<CanUseTool>[2];

interface InteractionRequest {
  readonly kind: 'approval' | 'user_input';
  readonly turnId: string;
  readonly toolName: string;
  readonly input: Record<string, unknown>;
  readonly options: InteractionOption[];
  readonly sdk: SdkOptions;
}

const deny = (message: string): PermissionResult => ({ behavior: 'deny', message });

const allowWith = (input: Record<string, unknown>, grant: PermissionUpdate[]): PermissionResult =>
  grant.length > 0
    ? { behavior: 'allow', updatedInput: input, updatedPermissions: grant }
    : { behavior: 'allow', updatedInput: input };

/**
 * The SDK `canUseTool` callback of one Query generation. Approvals and questions are published only
 * after the turn's provider identity is bound (the host persists identity before it shows anything of
 * the turn); a tool use the SDK aborts before that publishes nothing.
 */
export function createCanUseTool(deps: CanUseToolDeps): CanUseTool {
  const ask = async (request: InteractionRequest): Promise<InteractiveSubmission | PermissionResult> => {
    const { signal } = request.sdk;
    const phase: InteractionPhase = request.kind === 'approval' ? 'waiting_approval' : 'waiting_input';
    try {
      await deps.awaitTurnIdentity(request.turnId, phase, signal);
    } catch {
      return deny(signal.aborted || !deps.isGenerationActive() ? TOOL_USE_ABORTED : IDENTITY_UNCONFIRMED);
    }
    if (signal.aborted || !deps.isGenerationActive()) return deny(TOOL_USE_ABORTED);

    const requestId = randomUUID();
    const toolCallId = request.sdk.toolUseID || requestId;
    const answer = deps.registry.register(request.turnId, requestId, signal);
    deps.emit(request.kind === 'approval' ? 'approval_requested' : 'user_input_requested', {
      turnId: request.turnId,
      requestId,
      toolCallId,
      toolName: request.toolName,
      ...(request.sdk.agentID ? { agentId: request.sdk.agentID } : {}),
      input: request.input,
      options: request.options,
      toolCall: {
        toolCallId,
        name: request.sdk.displayName || request.toolName,
        title: request.sdk.title || request.toolName,
        toolName: request.toolName,
        input: request.input,
      },
    });
    let submission: InteractiveSubmission;
    try {
      submission = await answer;
    } catch (error) {
      if (error instanceof InteractionSupersededError) return deny(error.message);
      throw error;
    }
    deps.emit(request.kind === 'approval' ? 'approval_resolved' : 'user_input_resolved', {
      turnId: request.turnId,
      requestId,
      action: submission.action,
      optionId: submission.optionId,
      payload: submission.payload,
    });
    return submission;
  };

  return async (toolName, input, sdk) => {
    if (!deps.isGenerationActive()) return deny(TOOL_USE_ABORTED);
    const isQuestion = toolName === 'AskUserQuestion';
    const isPlanExit = toolName === 'ExitPlanMode';

    // Questions and plan approval need a person even when permissions are bypassed.
    if (!isQuestion && !isPlanExit) {
      if (deps.getPermissionMode() === 'bypassPermissions' && deps.canBypassPermissions) {
        return { behavior: 'allow', updatedInput: input };
      }
      // The very request the user allowed for the session, or a request whose suggested rules were all granted.
      const remembered = deps.ledger.matchRequest(toolName, input) ?? deps.ledger.match(sessionGrant(sdk.suggestions));
      if (remembered) return allowWith(input, remembered);
    }

    const turnId = deps.resolveTurnId(sdk.toolUseID || undefined, sdk.agentID);

    if (isQuestion) {
      const { published, questions } = identifyQuestions(input);
      const reply = await ask({ kind: 'user_input', turnId, toolName, input: published, options: [], sdk });
      if ('behavior' in reply) return reply;
      if (isRefusal(reply)) return deny(denyMessage(reply, QUESTION_DECLINED));
      return { behavior: 'allow', updatedInput: { ...input, ...answersFromPayload(questions, reply.payload) } };
    }

    if (isPlanExit) {
      const options = exitPlanModeOptions(deps.canBypassPermissions);
      const reply = await ask({ kind: 'user_input', turnId, toolName, input, options, sdk });
      if ('behavior' in reply) return reply;
      return exitPlanModeResult(reply, input, deps.canBypassPermissions);
    }

    const options = approvalOptions(sdk.suppressAlwaysAllowRule !== true, sessionGrant(sdk.suggestions));
    const reply = await ask({ kind: 'approval', turnId, toolName, input, options, sdk });
    if ('behavior' in reply) return reply;
    switch (approvalDecision(reply)) {
      case 'allow_once':
        return { behavior: 'allow', updatedInput: input };
      case 'allow_for_session': {
        if (sdk.suppressAlwaysAllowRule === true) return { behavior: 'allow', updatedInput: input };
        const grant = sessionGrant(sdk.suggestions);
        // Claude Code cannot turn every grant into a rule (compound commands, redirections): the exact
        // request is remembered as well, so the same request is never asked again in this session.
        deps.ledger.rememberRequest(toolName, input, grant);
        if (grant.length > 0) deps.ledger.remember(grant);
        return allowWith(input, grant);
      }
      case 'deny':
        return deny(denyMessage(reply, DEFAULT_DENY_MESSAGE));
    }
  };
}

import type { ModelInfo, Options, PermissionMode, SDKMessage, SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';

/**
 * The part of the SDK `Query` the runtime uses. The real `Query` satisfies it; test fakes implement only
 * what a scenario needs, which is why every control method is optional.
 */
export interface ClaudeQuery extends AsyncIterable<SDKMessage> {
  interrupt?(): Promise<unknown>;
  close?(): void;
  /** `commands`: the session's slash commands with their descriptions (the SDK's `SlashCommand` entries). */
  initializationResult?(): Promise<{ models?: ModelInfo[]; commands?: unknown[] }>;
  getContextUsage?(): Promise<unknown>;
  stopTask?(taskId: string): Promise<unknown>;
  /**
   * Drops a prompt still waiting in Claude Code's queue (control request `cancel_async_message`): true when
   * it was withdrawn, false when it had already been taken off the queue to run. The SDK's Query has this
   * method although its declarations do not list it (0.3.332; the request type is declared).
   */
  cancelAsyncMessage?(messageUuid: string): Promise<boolean>;
  setModel?(model?: string): Promise<void>;
  setPermissionMode?(mode: PermissionMode): Promise<unknown>;
  applyFlagSettings?(settings: Record<string, unknown>): Promise<void>;
}

export interface QueryParams {
  prompt: AsyncIterable<SDKUserMessage>;
  options: Options;
}

export type QueryFactory = (params: QueryParams) => ClaudeQuery;

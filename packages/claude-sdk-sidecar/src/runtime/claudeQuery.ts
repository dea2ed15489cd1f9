import type { ModelInfo, Options, PermissionMode, SDKMessage, SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';

/**
 * The part of the SDK `Query` the runtime uses. The real `Query` satisfies it; test fakes implement only
 * what a scenario needs, which is why every control method is optional.
 */
export interface ClaudeQuery extends AsyncIterable<SDKMessage> {
  interrupt?(): Promise<unknown>;
  close?(): void;
  initializationResult?(): Promise<{ models?: ModelInfo[] }>;
  getContextUsage?(): Promise<unknown>;
  stopTask?(taskId: string): Promise<unknown>;
  setModel?(model?: string): Promise<void>;
  setPermissionMode?(mode: PermissionMode): Promise<unknown>;
  applyFlagSettings?(settings: Record<string, unknown>): Promise<void>;
}

export interface QueryParams {
  prompt: AsyncIterable<SDKUserMessage>;
  options: Options;
}

export type QueryFactory = (params: QueryParams) => ClaudeQuery;

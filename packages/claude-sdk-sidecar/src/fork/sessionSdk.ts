import type {
  ForkSessionOptions,
  ForkSessionResult,
  GetSessionInfoOptions,
  GetSessionMessagesOptions,
  GetSubagentMessagesOptions,
  ListSessionsOptions,
  ListSubagentsOptions,
  SDKSessionInfo,
  SessionMessage,
} from '@anthropic-ai/claude-agent-sdk';
import { loadClaudeAgentSdk } from '../config/claudeAgentSdk.ts';

/** The official session-file APIs the stateless requests and the identity barrier use; injectable for tests. */
export interface SessionSdk {
  getSessionMessages(sessionId: string, options?: GetSessionMessagesOptions): Promise<SessionMessage[]>;
  getSessionInfo(sessionId: string, options?: GetSessionInfoOptions): Promise<SDKSessionInfo | undefined>;
  forkSession(sessionId: string, options?: ForkSessionOptions): Promise<ForkSessionResult>;
}

/** The session functions a history browser adds: every session of a config dir, and the subagents' transcripts. */
export interface ClaudeHistorySdk extends SessionSdk {
  listSessions(options?: ListSessionsOptions): Promise<SDKSessionInfo[]>;
  getSubagentMessages(
    sessionId: string,
    agentId: string,
    options?: GetSubagentMessagesOptions,
  ): Promise<SessionMessage[]>;
  listSubagents(sessionId: string, options?: ListSubagentsOptions): Promise<string[]>;
}

/** The SDK functions as they are: they read transcripts under this process's `CLAUDE_CONFIG_DIR`. */
export const claudeSessionSdk: SessionSdk = {
  getSessionMessages: async (...args) => (await loadClaudeAgentSdk()).getSessionMessages(...args),
  getSessionInfo: async (...args) => (await loadClaudeAgentSdk()).getSessionInfo(...args),
  forkSession: async (...args) => (await loadClaudeAgentSdk()).forkSession(...args),
};

/** The `dir` option (project path) for a session call, omitted when no cwd is known (all projects are searched). */
export function projectDir(cwd: string): { dir?: string } {
  return cwd ? { dir: cwd } : {};
}

/** Every SDK-visible message of a session, system messages included: they extend Turn checkpoints. */
export function readTranscript(sdk: SessionSdk, sessionId: string, cwd: string): Promise<SessionMessage[]> {
  return sdk.getSessionMessages(sessionId, { ...projectDir(cwd), includeSystemMessages: true });
}

export function requireProviderSessionId(providerSessionId: string): string {
  const id = providerSessionId.trim();
  if (!id) throw new Error('provider session id is required');
  return id;
}

import type {
  ForkSessionOptions,
  ForkSessionResult,
  GetSessionInfoOptions,
  GetSessionMessagesOptions,
  SDKSessionInfo,
  SessionMessage,
} from '@anthropic-ai/claude-agent-sdk';
import { loadClaudeAgentSdk } from '../config/claudeAgentSdk.ts';
import { configDirSessionSdk } from './configDirSessionSdk.ts';

/** The official session-file APIs the stateless requests and the identity barrier use; injectable for tests. */
export interface SessionSdk {
  getSessionMessages(sessionId: string, options?: GetSessionMessagesOptions): Promise<SessionMessage[]>;
  getSessionInfo(sessionId: string, options?: GetSessionInfoOptions): Promise<SDKSessionInfo | undefined>;
  forkSession(sessionId: string, options?: ForkSessionOptions): Promise<ForkSessionResult>;
}

/** The SDK functions as they are: they read transcripts under this process's `CLAUDE_CONFIG_DIR`. */
export const claudeSessionSdk: SessionSdk = {
  getSessionMessages: async (...args) => (await loadClaudeAgentSdk()).getSessionMessages(...args),
  getSessionInfo: async (...args) => (await loadClaudeAgentSdk()).getSessionInfo(...args),
  forkSession: async (...args) => (await loadClaudeAgentSdk()).forkSession(...args),
};

/**
 * The session APIs as seen from a given Claude config dir. The SDK takes that dir only from
 * `process.env.CLAUDE_CONFIG_DIR` and reads it again at several points inside each (async) call, so
 * swapping the variable around a call would leak it to concurrent calls and to Query envs built
 * meanwhile. A different dir is therefore served from a worker thread, whose `process.env` is its own.
 */
export function sessionSdkForConfigDir(claudeConfigDir: string | undefined): SessionSdk {
  const dir = claudeConfigDir?.trim();
  if (!dir || dir === process.env.CLAUDE_CONFIG_DIR?.trim()) return claudeSessionSdk;
  return configDirSessionSdk(dir);
}

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

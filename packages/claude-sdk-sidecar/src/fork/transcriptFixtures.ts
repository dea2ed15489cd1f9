import type { SessionMessage } from '@anthropic-ai/claude-agent-sdk';
import type { SessionSdk } from './sessionSdk.ts';

/** Builders for SDK-shaped transcripts in tests; extra fields (isSynthetic, origin, …) pass through. */
export const SESSION_ID = '11111111-1111-4111-8111-111111111111';

export function userMessage(uuid: string, content: unknown, extra: Record<string, unknown> = {}): SessionMessage {
  return {
    type: 'user',
    uuid,
    session_id: SESSION_ID,
    message: { role: 'user', content },
    parent_tool_use_id: null,
    parent_agent_id: null,
    ...extra,
  };
}

export function assistantMessage(uuid: string, text = 'ok'): SessionMessage {
  return {
    type: 'assistant',
    uuid,
    session_id: SESSION_ID,
    message: { role: 'assistant', content: [{ type: 'text', text }] },
    parent_tool_use_id: null,
    parent_agent_id: null,
  };
}

export function systemMessage(uuid: string): SessionMessage {
  return {
    type: 'system',
    uuid,
    session_id: SESSION_ID,
    message: { subtype: 'informational' },
    parent_tool_use_id: null,
    parent_agent_id: null,
  };
}

export function toolResultMessage(uuid: string, toolUseId: string): SessionMessage {
  return userMessage(uuid, [{ type: 'tool_result', tool_use_id: toolUseId, content: 'done' }]);
}

export interface FakeSessionSdk extends SessionSdk {
  readonly calls: { method: string; sessionId: string; options: unknown }[];
}

/** A SessionSdk over fixed transcripts; `fork` decides what a fork call does. */
export function fakeSessionSdk(
  transcripts: Record<string, SessionMessage[]>,
  fork: (sessionId: string, upToMessageId: string | undefined) => string = () => {
    throw new Error('forkSession not expected');
  },
): FakeSessionSdk {
  const calls: FakeSessionSdk['calls'] = [];
  return {
    calls,
    async getSessionMessages(sessionId, options) {
      calls.push({ method: 'getSessionMessages', sessionId, options });
      return transcripts[sessionId] ?? [];
    },
    async getSessionInfo(sessionId, options) {
      calls.push({ method: 'getSessionInfo', sessionId, options });
      return transcripts[sessionId] ? { sessionId, summary: 'fixture', lastModified: 0 } : undefined;
    },
    async forkSession(sessionId, options) {
      calls.push({ method: 'forkSession', sessionId, options });
      return { sessionId: fork(sessionId, options?.upToMessageId) };
    },
  };
}

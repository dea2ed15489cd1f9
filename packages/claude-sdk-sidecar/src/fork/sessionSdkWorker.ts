import { parentPort } from 'node:worker_threads';
import {
  forkSession,
  getSessionInfo,
  getSessionMessages,
  getSubagentMessages,
  listSessions,
  listSubagents,
} from '@anthropic-ai/claude-agent-sdk';

/** Runs the SDK session APIs under the `CLAUDE_CONFIG_DIR` this worker was started with. */
export interface SessionSdkCall {
  id: number;
  method:
    | 'getSessionMessages'
    | 'getSessionInfo'
    | 'forkSession'
    | 'listSessions'
    | 'getSubagentMessages'
    | 'listSubagents';
  args: unknown[];
}

export type SessionSdkReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: { name: string; message: string } };

const methods = {
  getSessionMessages,
  getSessionInfo,
  forkSession,
  listSessions,
  getSubagentMessages,
  listSubagents,
} as Record<SessionSdkCall['method'], (...args: unknown[]) => Promise<unknown>>;

parentPort?.on('message', async ({ id, method, args }: SessionSdkCall) => {
  let reply: SessionSdkReply;
  try {
    reply = { id, ok: true, value: await methods[method](...args) };
  } catch (error) {
    const { name, message } = error instanceof Error ? error : new Error(String(error));
    reply = { id, ok: false, error: { name, message } };
  }
  parentPort?.postMessage(reply);
});

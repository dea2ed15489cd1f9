import { randomUUID } from 'node:crypto';
import { isAbsolute } from 'node:path';
import {
  type AgentApp,
  type AgentContext,
  agent,
  type ClientCapabilities,
  type InitializeResponse,
  type McpServer,
  methods,
  PROTOCOL_VERSION,
  RequestError,
  type SessionInfo,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import type { HostClient, MessageView, SessionSnapshot } from '@outrigger/host-api';
import { configOptionsOf, modePatchOf, modeStateOf, settingsPatchOf } from '../updates/sessionConfig.ts';
import { FollowedSession, hostRequestError } from './followedSession.ts';

/*
 * `outrigger acp`'s ACP agent: each request maps onto the host's HTTP API, and an ACP session id is the host's
 * session id, so a session made in the editor is the one the browser lists, and the editor loads any session
 * the host has. docs/acp.md has the whole table.
 */

export interface OutriggerAgentOptions {
  readonly host: HostClient;
  readonly version: string;
  /** Diagnostics (stderr: stdout carries the protocol). Never prompt text. */
  readonly log: (line: string) => void;
}

/** Sessions listed per `session/list` page. */
const LIST_PAGE = 50;

export function createOutriggerAgent(options: OutriggerAgentOptions): AgentApp {
  const { host, log } = options;
  let clientCapabilities: ClientCapabilities | undefined;
  const followed = new Map<string, FollowedSession>();

  const follow = async (
    context: AgentContext,
    snapshot: SessionSnapshot,
    history: readonly MessageView[] | undefined,
  ): Promise<FollowedSession> => {
    followed.get(snapshot.session.id)?.close('the editor opened the session again');
    const session = new FollowedSession({
      host,
      client: context,
      sessionId: snapshot.session.id,
      cwd: snapshot.session.cwd,
      clientCapabilities,
      afterSeq: snapshot.lastSeq,
      log,
    });
    followed.set(session.sessionId, session);
    if (history !== undefined) await session.replay(history);
    session.follow();
    void commandsOf(host, session.sessionId).then((update) => update && session.announce([update]));
    return session;
  };

  const followedOr = (sessionId: string): FollowedSession => {
    const session = followed.get(sessionId);
    if (session === undefined) throw RequestError.sessionNotFound(sessionId);
    return session;
  };

  const sessionState = (snapshot: SessionSnapshot) => ({
    modes: modeStateOf(snapshot.session.settings),
    configOptions: configOptionsOf(snapshot.session.settings, snapshot.session.configOptions),
  });

  return agent({ name: 'outrigger' })
    .onConnect((connection) => {
      void connection.closed.then(() => {
        for (const session of followed.values()) session.close('the editor disconnected');
        followed.clear();
      });
    })
    .onRequest(methods.agent.initialize, ({ params }): InitializeResponse => {
      clientCapabilities = params.clientCapabilities;
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: { http: false, sse: false },
          sessionCapabilities: { list: {}, resume: {}, close: {} },
        },
        authMethods: [],
        agentInfo: { name: 'outrigger', title: 'Outrigger', version: options.version },
      };
    })
    .onRequest(methods.agent.authenticate, () => ({}))
    .onRequest(methods.agent.session.new, async ({ params, client }) => {
      requireAbsolute(params.cwd);
      ignoredMcpServers(params.mcpServers, log);
      const created = await host.call('createSession', { body: { cwd: params.cwd } }).catch((error: unknown) => {
        throw hostRequestError(error);
      });
      const snapshot = await snapshotOf(host, created.id);
      await follow(client, snapshot, undefined);
      return { sessionId: created.id, ...sessionState(snapshot) };
    })
    .onRequest(methods.agent.session.load, async ({ params, client }) => {
      ignoredMcpServers(params.mcpServers, log);
      const snapshot = await snapshotOf(host, params.sessionId);
      await follow(client, snapshot, await historyOf(host, snapshot));
      return sessionState(snapshot);
    })
    .onRequest(methods.agent.session.resume, async ({ params, client }) => {
      const snapshot = await snapshotOf(host, params.sessionId);
      await follow(client, snapshot, undefined);
      return sessionState(snapshot);
    })
    .onRequest(methods.agent.session.list, async ({ params }) => {
      const { sessions } = await host.call('listSessions').catch((error: unknown) => {
        throw hostRequestError(error);
      });
      const matching = sessions.filter((session) => params.cwd == null || session.cwd === params.cwd);
      const start = cursorOf(params.cursor);
      const page = matching.slice(start, start + LIST_PAGE);
      const infos: SessionInfo[] = page.map((session) => ({
        sessionId: session.id,
        cwd: session.cwd,
        title: session.title,
        updatedAt: new Date(session.lastActivityAt).toISOString(),
      }));
      const next = start + LIST_PAGE < matching.length ? String(start + LIST_PAGE) : null;
      return { sessions: infos, nextCursor: next };
    })
    .onRequest(methods.agent.session.prompt, async ({ params, signal }) => {
      const session = followedOr(params.sessionId);
      // A `$/cancel_request` for the prompt is a cancel of its turn, as `session/cancel` is.
      const onAbort = () => void session.cancel();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        return { stopReason: await session.prompt(params.prompt, `acp-${randomUUID()}`) };
      } finally {
        signal.removeEventListener('abort', onAbort);
      }
    })
    .onNotification(methods.agent.session.cancel, async ({ params }) => {
      await followed.get(params.sessionId)?.cancel();
    })
    .onRequest(methods.agent.session.setMode, async ({ params }) => {
      followedOr(params.sessionId);
      await updateSettings(
        host,
        params.sessionId,
        invalidParamsOf(() => modePatchOf(params.modeId)),
      );
      return {};
    })
    .onRequest(methods.agent.session.setConfigOption, async ({ params }) => {
      followedOr(params.sessionId);
      const { configId, value } = params;
      await updateSettings(
        host,
        params.sessionId,
        invalidParamsOf(() => settingsPatchOf(configId, value)),
      );
      const snapshot = await snapshotOf(host, params.sessionId);
      return { configOptions: configOptionsOf(snapshot.session.settings, snapshot.session.configOptions) };
    })
    .onRequest(methods.agent.session.close, async ({ params }) => {
      const session = followedOr(params.sessionId);
      // ACP's close ends the editor's work in the session; the session itself stays in the host.
      await session.cancel();
      session.close('the editor closed the session');
      followed.delete(params.sessionId);
      return {};
    });
}

async function snapshotOf(host: HostClient, sessionId: string): Promise<SessionSnapshot> {
  return host.call('getSession', { params: { id: sessionId } }).catch((error: unknown) => {
    const mapped = hostRequestError(error);
    throw mapped.code === RequestError.resourceNotFound().code ? RequestError.sessionNotFound(sessionId) : mapped;
  });
}

/**
 * The whole transcript, oldest first: the snapshot's page is consistent with its `lastSeq` (the stream follows
 * from there), and the pages before it are older rows that no longer change.
 */
async function historyOf(host: HostClient, snapshot: SessionSnapshot): Promise<MessageView[]> {
  const pages: MessageView[][] = [snapshot.messages.messages];
  let hasMore = snapshot.messages.hasMore;
  while (hasMore) {
    const before = pages.at(-1)?.[0]?.position;
    if (before === undefined) break;
    const page = await host
      .call('listMessages', { params: { id: snapshot.session.id }, query: { before, limit: 500 } })
      .catch((error: unknown) => {
        throw hostRequestError(error);
      });
    pages.push(page.messages);
    hasMore = page.hasMore;
  }
  return pages.reverse().flat();
}

async function commandsOf(host: HostClient, sessionId: string): Promise<SessionUpdate | undefined> {
  const { commands } = await host.call('listCommands', { params: { id: sessionId } }).catch(() => ({ commands: [] }));
  if (commands.length === 0) return undefined;
  return {
    sessionUpdate: 'available_commands_update',
    availableCommands: commands.map((command) => ({
      name: command.name,
      description: command.description,
      input: command.input === undefined ? null : { hint: command.input.hint },
    })),
  };
}

async function updateSettings(host: HostClient, sessionId: string, body: object): Promise<void> {
  await host.call('updateSettings', { params: { id: sessionId }, body }).catch((error: unknown) => {
    throw hostRequestError(error);
  });
}

/** A mapping's refusal (an unknown mode, model or effort) as the editor's bad parameters, with its words. */
function invalidParamsOf<T>(map: () => T): T {
  try {
    return map();
  } catch (error) {
    throw RequestError.invalidParams(undefined, error instanceof Error ? error.message : String(error));
  }
}

function requireAbsolute(cwd: string): void {
  if (!isAbsolute(cwd)) throw RequestError.invalidParams(undefined, `cwd must be an absolute path, not ${cwd}`);
}

/** Claude Code's MCP servers are the session directory's and the user's own (`.mcp.json`, settings). */
function ignoredMcpServers(servers: readonly McpServer[], log: (line: string) => void): void {
  if (servers.length > 0) {
    log(`${servers.length} MCP server(s) from the editor are not passed on: Claude Code uses its own configuration`);
  }
}

function cursorOf(cursor: string | null | undefined): number {
  if (cursor == null) return 0;
  const start = Number(cursor);
  if (!Number.isInteger(start) || start < 0) throw RequestError.invalidParams(undefined, `unknown cursor ${cursor}`);
  return start;
}

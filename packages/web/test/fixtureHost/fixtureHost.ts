import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import {
  answerInteractionBodySchema,
  createSessionBodySchema,
  createTaskBodySchema,
  forkSessionBodySchema,
  type HostErrorCode,
  type HostEvent,
  hostErrorStatus,
  type MessageView,
  patchSessionBodySchema,
  patchSettingsBodySchema,
  patchTaskBodySchema,
  postTurnBodySchema,
  type SessionDetail,
  type SessionEvent,
  type Task,
} from '@outrigger/host-api';
import type { z } from 'zod';
import { sseFrame } from '../../src/data/testing/sseFrame.ts';
import { composerRoutes, fixtureModels, rejectedModel } from './composerRoutes.ts';
import { FakeCheckpoints } from './fakeCheckpoints.ts';
import { projectFiles, type Tree } from './fakeFiles.ts';
import { FakeHistory, historyRoutes } from './fakeHistory.ts';
import { FakeSession, type HostEventInput } from './fakeSession.ts';
import { FakeWorktree } from './fakeWorktree.ts';
import { HttpError } from './httpError.ts';
import { queueRoutes } from './queueRoutes.ts';
import { reviewRoutes } from './reviewRoutes.ts';
import { checkCwd, sessionRoutes } from './sessionRoutes.ts';
import { fallbackScript, hostScripts, TurnIO, turnScripts } from './turnScripts.ts';

export interface FixtureHostOptions {
  /** The built UI (`packages/web/dist`). */
  distDir: string;
  port?: number;
  modelBackend?: 'demo' | 'anthropic';
  /** Multiplies every scripted delay (0.2: five times faster). */
  speed?: number;
  heartbeatMs?: number;
  /** Sent on every response, as the real host sends its `CONTENT_SECURITY_POLICY`. */
  contentSecurityPolicy?: string;
}

export interface FixtureHost {
  url: string;
  sessions: Map<string, FakeSession>;
  /** Claude Code's history as this host serves it (`/api/history…`). */
  history: FakeHistory;
  /** Adds a finished session with `count` transcript rows (long-session checks). */
  seedLongSession(count: number): FakeSession;
  /** Makes every open stream silent: no events, no heartbeats (dead-stream checks). */
  freezeStreams(): void;
  close(): Promise<void>;
}

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/**
 * A scripted, in-memory stand-in for the host, speaking the host-api contract: the UI is developed,
 * looked at and tested in Chromium against it until the real host serves it. Not a product part.
 */
export async function startFixtureHost(options: FixtureHostOptions): Promise<FixtureHost> {
  const sessions = new Map<string, FakeSession>();
  /** Each folder's files, shared by the sessions working in it (a worktree is a folder of its own). */
  const directories = new Map<string, Tree>();
  const directoryOf = (cwd: string): Tree => {
    let files = directories.get(cwd);
    if (files === undefined) {
      files = projectFiles();
      directories.set(cwd, files);
    }
    return files;
  };
  const tasks = new Map<string, Task>();
  const attachments = new Map<string, { mediaType: string; bytes: Buffer }>();
  const hostLog: HostEvent[] = [];
  const hostSubscribers = new Set<(event: HostEvent) => void>();
  const streams = new Set<ServerResponse>();
  const history = new FakeHistory();
  let frozen = false;
  let nextId = 1;
  const speed = options.speed ?? 1;

  const publishHost = (input: HostEventInput) => {
    const event = { type: input.type, data: { ...input.data, seq: hostLog.length + 1 } } as HostEvent;
    hostLog.push(event);
    for (const subscriber of hostSubscribers) subscriber(event);
  };

  const newSession = (
    body: z.output<typeof createSessionBodySchema>,
    forkedFrom: SessionDetail['forkedFrom'] = null,
    continuation: { continuedFrom?: SessionDetail['continuedFrom'] } = {},
  ) => {
    const rejected = rejectedModel(body.model);
    if (rejected !== undefined) throw rejected;
    body = { ...body, cwd: checkCwd(body.cwd) };
    const id = `s${nextId++}`;
    const now = Date.now();
    const title = body.title ?? 'New session';
    let worktree: FakeWorktree | null = null;
    if (body.worktree === true) {
      // The fixture's repositories are the folders under /work; anything else is not one.
      if (!body.cwd.startsWith('/work/'))
        throw new HttpError('validation_failed', `cannot make a worktree of ${body.cwd}: not a git repository`, [
          { path: 'worktree', message: `${body.cwd} is not in a git repository` },
        ]);
      const slug = `${
        title
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '-')
          .replace(/^-|-$/g, '')
          .slice(0, 32) || 'session'
      }-${id}`;
      // A session named for a conflict finds its base branch changed the same file meanwhile.
      worktree = new FakeWorktree(body.cwd, slug, directoryOf(body.cwd), {
        changedOnBase: /conflict/i.test(title) ? ['src/greet.ts'] : [],
      });
      directories.set(worktree.worktree.path, worktree.files);
    }
    const cwd = worktree?.worktree.path ?? body.cwd;
    const detail: SessionDetail = {
      id,
      title,
      cwd,
      status: 'idle',
      closed: false,
      archivedAt: null,
      needsInputCount: 0,
      runningTurnId: null,
      runningTurnStartedAt: null,
      queuePaused: false,
      lastError: null,
      model: body.model ?? 'default',
      permissionMode: body.permissionMode ?? 'default',
      forkedFrom,
      createdAt: now,
      updatedAt: now,
      lastActivityAt: now,
      providerSessionId: `p-${id}`,
      worktree: worktree?.worktree ?? null,
      settings: {
        model: body.model ?? 'default',
        permissionMode: body.permissionMode ?? 'default',
        planMode: body.planMode ?? false,
        effort: body.effort ?? null,
      },
      effectiveModel: 'claude-sonnet-4-5',
      configOptions: [
        {
          id: 'model',
          name: 'Model',
          type: 'select',
          currentValue: body.model ?? 'default',
          options: fixtureModels,
        },
      ],
      usage: { contextWindow: null, inputTokens: 0, outputTokens: 0, totalCostUsd: null },
      terminalCommand: `cd ${cwd} && claude --resume p-${id}`,
      continuedFrom: continuation.continuedFrom ?? null,
    };
    // A folder named no-git stands for a machine without git: every checkpoint fails.
    const checkpoints = new FakeCheckpoints(directoryOf(cwd), { gitMissing: cwd.includes('no-git') });
    const session = new FakeSession(detail, publishHost, checkpoints, worktree);
    sessions.set(id, session);
    session.publishSummary();
    return session;
  };

  const tasksChanged = (sessionId: string) => {
    const session = sessionOf(sessionId);
    const userTasks = [...tasks.values()].filter((task) => task.session_id === sessionId);
    session.emit('tasks_changed', {
      tasks: [...session.view.tasks.filter((task) => task.source === 'sdk'), ...userTasks],
    });
  };

  const sessionOf = (id: string) => {
    const session = sessions.get(id);
    if (session === undefined) throw new HttpError('not_found', `no session ${id}`);
    return session;
  };

  const runTurn = async (session: FakeSession, turnId: string, prompt: string, message: MessageView) => {
    const abort = new AbortController();
    session.running = { turnId, abort };
    session.lastTurnFailed = null;
    session.emit('turn_started', { turnId, kind: 'user', message });
    const checkpointed = checkpoint(session, turnId, 'start');
    session.publishStatus();
    const io = new TurnIO(session, turnId, abort.signal, speed);
    const started = Date.now();
    const script = [...hostScripts, ...turnScripts].find(([pattern]) => pattern.test(prompt))?.[1] ?? fallbackScript;
    const usage = {
      inputTokens: 1200 + prompt.length,
      outputTokens: 180,
      cacheReadInputTokens: 0,
      cacheCreationInputTokens: 0,
      costUsd: 0.0042,
    };
    try {
      await script(io, prompt);
      session.emit('result', {
        turnId,
        outcome: 'completed',
        stopReason: 'end_turn',
        error: null,
        usage,
        durationMs: Date.now() - started,
      });
      session.emit('done', { turnId, outcome: 'completed', error: null });
    } catch (error) {
      if (abort.signal.aborted) {
        if (io.streaming !== null)
          session.emit(io.streaming.kind, {
            turnId,
            messageId: io.streaming.messageId,
            delta: '',
            final: true,
            text: io.streaming.text,
            interrupted: true,
          });
        supersede(session, turnId);
        session.emit('turn_canceled', { turnId, disposition: 'provider_active', reason: 'canceled by the user' });
        session.emit('done', { turnId, outcome: 'canceled', error: null });
      } else {
        const turnError = {
          message: error instanceof Error ? error.message : String(error),
          code: (error as { code?: string }).code ?? null,
          apiErrorStatus: (error as { apiErrorStatus?: number }).apiErrorStatus ?? null,
        };
        supersede(session, turnId);
        session.lastTurnFailed = turnError;
        session.emit('result', {
          turnId,
          outcome: 'failed',
          stopReason: null,
          error: turnError,
          usage,
          durationMs: Date.now() - started,
        });
        session.emit('done', { turnId, outcome: 'failed', error: turnError });
      }
    }
    // As the host: the end checkpoint once the turn is done, before the next prompt starts.
    if (checkpointed) checkpoint(session, turnId, 'end');
    session.worktree?.turnEnded();
    const used = session.detail.usage;
    session.emit('usage', {
      turnId,
      usage: {
        contextWindow: {
          usedTokens: Math.min(200_000, (used.contextWindow?.usedTokens ?? 9000) + 23_000),
          totalTokens: 200_000,
          compactsAutomatically: true,
        },
        inputTokens: used.inputTokens + usage.inputTokens,
        outputTokens: used.outputTokens + usage.outputTokens,
        totalCostUsd: (used.totalCostUsd ?? 0) + usage.costUsd,
      },
    });
    if (session.detail.title === 'New session')
      session.emit('title', { title: prompt.length > 40 ? `${prompt.slice(0, 40)}…` : prompt });
    session.running = null;
    session.publishStatus();
    // As the host: the next prompt that is not paused (a Stop paused the ones queued then).
    const next = session.takeQueued();
    if (next !== undefined) runQueued(session, next);
  };

  const runQueued = (session: FakeSession, next: FakeSession['queue'][number]) => {
    void runTurn(
      session,
      next.turnId,
      next.prompt,
      userRow(session, next.turnId, next.content, next.clientMessageId, false),
    );
  };

  /** A checkpoint at a turn's start or end, said on the stream; one that fails is said, and the turn goes on. */
  const checkpoint = (session: FakeSession, turnId: string, edge: 'start' | 'end'): boolean => {
    try {
      if (edge === 'start') {
        const taken = session.checkpoints.turnStart(turnId);
        session.emit('checkpoint', { turnId, checkpoint: taken, filesChanged: null, error: null });
        return true;
      }
      const ended = session.checkpoints.turnEnd(turnId);
      if (ended !== undefined) session.emit('checkpoint', { turnId, ...ended, error: null });
      return true;
    } catch (error) {
      session.emit('checkpoint', {
        turnId,
        checkpoint: null,
        filesChanged: null,
        error: error instanceof Error ? error.message : String(error),
      });
      return false;
    }
  };

  const supersede = (session: FakeSession, turnId: string) => {
    for (const [requestId, pending] of session.pending) {
      if (pending.interaction.turnId !== turnId) continue;
      session.pending.delete(requestId);
      session.emit('permission_resolved', {
        turnId,
        requestId,
        status: 'superseded',
        resolution: 'turn_ended',
        answer: null,
      });
      session.decide(pending.interaction, null);
      session.publishHost({
        type: 'permission_resolved',
        data: { session_id: session.id, turnId, requestId, status: 'superseded', resolution: 'turn_ended' },
      });
    }
  };

  const userRow = (
    session: FakeSession,
    turnId: string,
    content: MessageView['content'],
    clientMessageId: string | null,
    steer: boolean,
  ): MessageView => ({
    id: session.nextRowId(),
    session_id: session.id,
    turnId,
    position: 0,
    role: 'user',
    status: 'complete',
    content,
    noticeKind: null,
    steer,
    clientMessageId,
    createdAt: Date.now(),
    updatedAt: Date.now(),
  });

  const handlers: [
    string,
    RegExp,
    (match: RegExpExecArray, body: unknown, request: IncomingMessage, response: ServerResponse) => Promise<unknown>,
  ][] = [
    [
      'GET',
      /^\/api\/info$/,
      async () => ({
        version: '0.1.0-fixture',
        modelBackend: options.modelBackend ?? 'demo',
        modelBackendReason: 'No ANTHROPIC_API_KEY was found; the scripted demo model answers.',
        defaultCwd: '/work/project',
        allowRoots: [],
        limits: {},
      }),
    ],
    [
      'GET',
      /^\/api\/sessions$/,
      async (_m, _b, request) => {
        // As the host: archived sessions only when asked for.
        const archived = new URL(request.url ?? '/', 'http://x').searchParams.get('archived') ?? 'exclude';
        const listed = [...sessions.values()]
          .map((s) => s.summary())
          .filter((s) => archived === 'include' || (archived === 'only') === (s.archivedAt !== null));
        return { sessions: listed.reverse(), lastSeq: hostLog.length };
      },
    ],
    [
      'POST',
      /^\/api\/sessions$/,
      async (_m, body) => {
        const session = newSession(createSessionBodySchema.parse(body));
        return { id: session.id, providerSessionId: session.detail.providerSessionId, session: session.summary() };
      },
    ],
    ['GET', /^\/api\/sessions\/([^/]+)$/, async (m) => sessionOf(m[1]!).snapshot()],
    [
      'PATCH',
      /^\/api\/sessions\/([^/]+)$/,
      async (m, body) => {
        const session = sessionOf(m[1]!);
        session.emit('title', { title: patchSessionBodySchema.parse(body).title });
        session.publishSummary();
        return session.detail;
      },
    ],
    [
      'DELETE',
      /^\/api\/sessions\/([^/]+)$/,
      async (m) => {
        const session = sessionOf(m[1]!);
        session.detail = { ...session.detail, closed: true };
        session.publishStatus();
        return undefined;
      },
    ],
    [
      'PATCH',
      /^\/api\/sessions\/([^/]+)\/settings$/,
      async (m, body) => {
        const session = sessionOf(m[1]!);
        const change = patchSettingsBodySchema.parse(body);
        const rejected = rejectedModel(change.model);
        if (rejected !== undefined) throw rejected;
        session.emit('settings', {
          settings: { ...session.detail.settings, ...change },
          effectiveModel: change.model === 'opus' ? 'claude-opus-4' : session.detail.effectiveModel,
        });
        session.publishSummary();
        return session.detail;
      },
    ],
    [
      'POST',
      /^\/api\/sessions\/([^/]+)\/turns$/,
      async (m, body) => {
        const session = sessionOf(m[1]!);
        if (session.detail.closed) throw new HttpError('session_closed', 'the session is closed');
        const turn = postTurnBodySchema.parse(body);
        const known = turn.clientMessageId === undefined ? undefined : session.sentByClientId.get(turn.clientMessageId);
        if (known !== undefined) return { ...known, replayed: true };
        const content: MessageView['content'] = [{ type: 'text', text: turn.prompt }];
        for (const block of turn.content ?? []) {
          if (block.type === 'text') content.push(block);
          else {
            const attachmentId = `a${nextId++}`;
            const bytes = Buffer.from(block.source.data, 'base64');
            attachments.set(attachmentId, { mediaType: block.source.media_type, bytes });
            content.push({ type: 'image', attachmentId, mediaType: block.source.media_type, bytes: bytes.length });
          }
        }
        const clientMessageId = turn.clientMessageId ?? null;
        let answer: { turnId: string; queued: boolean; steered: boolean };
        if (session.running !== null && turn.mode === 'steer') {
          const turnId = session.running.turnId;
          session.emit('user_message', { turnId, message: userRow(session, turnId, content, clientMessageId, true) });
          answer = { turnId, queued: false, steered: true };
        } else if (session.running !== null) {
          const turnId = `t${nextId++}`;
          session.queue.push({
            turnId,
            prompt: turn.prompt,
            clientMessageId,
            imageCount: content.length - 1,
            createdAt: Date.now(),
            paused: false,
            content,
          });
          session.emit('queue', { queuedPrompts: session.queue.map(({ content: _c, ...queued }) => queued) });
          answer = { turnId, queued: true, steered: false };
        } else {
          const turnId = `t${nextId++}`;
          void runTurn(session, turnId, turn.prompt, userRow(session, turnId, content, clientMessageId, false));
          answer = { turnId, queued: false, steered: false };
        }
        if (clientMessageId !== null) session.sentByClientId.set(clientMessageId, answer);
        return { ...answer, replayed: false };
      },
    ],
    [
      'POST',
      /^\/api\/sessions\/([^/]+)\/turns\/([^/]+)\/cancel$/,
      async (m) => {
        const session = sessionOf(m[1]!);
        const turnId = m[2]!;
        const queuedIndex = session.queue.findIndex((queued) => queued.turnId === turnId);
        if (queuedIndex !== -1) {
          session.queue.splice(queuedIndex, 1);
          session.emit('queue', { queuedPrompts: session.queue.map(({ content: _c, ...queued }) => queued) });
          return { turnId, canceled: true, disposition: 'pre_accept', providerTurnId: '' };
        }
        if (session.running?.turnId !== turnId)
          return { turnId, canceled: false, disposition: 'absent', providerTurnId: '' };
        // Stop must stop: what waits behind the stopped turn is paused before it ends.
        session.pauseQueue();
        const ended = new Promise<void>((resolve) => {
          const listener = (event: SessionEvent) => {
            if (event.type === 'done' && event.data.turnId === turnId) {
              session.subscribers.delete(listener);
              resolve();
            }
          };
          session.subscribers.add(listener);
        });
        session.running.abort.abort(new Error('canceled'));
        await ended;
        return { turnId, canceled: true, disposition: 'provider_active', providerTurnId: `pt-${turnId}` };
      },
    ],
    [
      'GET',
      /^\/api\/sessions\/([^/]+)\/messages$/,
      async (m, _b, request) => {
        const query = new URL(request.url ?? '/', 'http://x').searchParams;
        const before = query.get('before');
        return sessionOf(m[1]!).messagesBefore(
          before === null ? undefined : Number(before),
          Number(query.get('limit') ?? 100),
        );
      },
    ],
    [
      'GET',
      /^\/api\/sessions\/([^/]+)\/tool-results\/([^/]+)$/,
      async (m) => {
        const session = sessionOf(m[1]!);
        const content = session.fullResults.get(decodeURIComponent(m[2]!));
        if (content === undefined) throw new HttpError('not_found', 'no such tool result');
        return {
          type: 'tool_result',
          tool_use_id: m[2],
          content,
          is_error: false,
          resultSource: 'canonical',
          truncated: false,
          length: content.length,
        };
      },
    ],
    [
      'POST',
      /^\/api\/sessions\/([^/]+)\/fork$/,
      async (m, body) => {
        const source = sessionOf(m[1]!);
        const { turnId, title } = forkSessionBodySchema.parse(body);
        const fork = newSession(
          { cwd: source.detail.cwd, title: title ?? `${source.detail.title} (fork)` },
          { sessionId: source.id, turnId },
        );
        const doneIndex = source.log.findIndex((event) => event.type === 'done' && event.data.turnId === turnId);
        for (const event of source.log.slice(0, doneIndex + 1)) {
          // A fork's checkpoints are its own (a new shadow repository): the source's are not carried over.
          if (
            [
              'status',
              'queue',
              'permission_request',
              'permission_resolved',
              'title',
              'checkpoint',
              'files_rewound',
              'worktree',
            ].includes(event.type)
          )
            continue;
          const { seq: _seq, session_id: _sid, ...data } = event.data;
          fork.emit(event.type, data as never);
        }
        fork.publishStatus();
        return { id: fork.id, providerSessionId: fork.detail.providerSessionId, session: fork.summary() };
      },
    ],
    [
      'GET',
      /^\/api\/tasks$/,
      async (_m, _b, request) => {
        const sessionId = new URL(request.url ?? '/', 'http://x').searchParams.get('session_id');
        return { tasks: [...tasks.values()].filter((task) => sessionId === null || task.session_id === sessionId) };
      },
    ],
    [
      'POST',
      /^\/api\/tasks$/,
      async (_m, body) => {
        const input = createTaskBodySchema.parse(body);
        const session = sessionOf(input.session_id);
        if (session.detail.closed)
          throw new HttpError('session_closed', 'the session is closed: it takes no new tasks (fork it to go on)');
        const now = Date.now();
        const task: Task = {
          id: `task-${nextId++}`,
          session_id: session.id,
          title: input.title,
          status: input.status ?? 'pending',
          description: input.description ?? null,
          sort_order: tasks.size,
          source: 'user',
          created_at: now,
          updated_at: now,
        };
        tasks.set(task.id, task);
        tasksChanged(task.session_id);
        return { task };
      },
    ],
    [
      'PATCH',
      /^\/api\/tasks\/([^/]+)$/,
      async (m, body) => {
        const task = tasks.get(m[1]!);
        if (task === undefined) throw new HttpError('conflict', 'an SDK task cannot be edited');
        const updated = { ...task, ...patchTaskBodySchema.parse(body), updated_at: Date.now() } as Task;
        tasks.set(task.id, updated);
        tasksChanged(task.session_id);
        return { task: updated };
      },
    ],
    [
      'DELETE',
      /^\/api\/tasks\/([^/]+)$/,
      async (m) => {
        const task = tasks.get(m[1]!);
        if (task === undefined) throw new HttpError('conflict', 'an SDK task cannot be deleted');
        tasks.delete(task.id);
        tasksChanged(task.session_id);
        return undefined;
      },
    ],
    [
      'GET',
      /^\/api\/interactions$/,
      async () => ({
        interactions: [...sessions.values()].flatMap((session) =>
          [...session.pending.values()].map((p) => p.interaction),
        ),
        lastSeq: hostLog.length,
      }),
    ],
    [
      'POST',
      /^\/api\/sessions\/([^/]+)\/interactions\/([^/]+)$/,
      async (m, body) => {
        const session = sessionOf(m[1]!);
        const requestId = decodeURIComponent(m[2]!);
        const answer = answerInteractionBodySchema.parse(body);
        const pending = session.pending.get(requestId);
        const known = session.view.interactions[requestId];
        if (pending === undefined) {
          if (known?.status === 'answered' && JSON.stringify(known.answer) === JSON.stringify(answer))
            return { replayed: true, interaction: known };
          if (known?.status === 'answered') throw new HttpError('conflict', 'a different answer was already given');
          throw new HttpError(known === undefined ? 'not_found' : 'gone', 'this request can no longer be answered');
        }
        session.pending.delete(requestId);
        const turnId = pending.interaction.turnId;
        session.emit('permission_resolved', { turnId, requestId, status: 'answered', resolution: 'answered', answer });
        session.decide(pending.interaction, answer);
        session.publishHost({
          type: 'permission_resolved',
          data: { session_id: session.id, turnId, requestId, status: 'answered', resolution: 'answered' },
        });
        session.publishStatus();
        pending.resolve(answer);
        return { replayed: false, interaction: session.view.interactions[requestId] };
      },
    ],
    ...reviewRoutes(sessionOf),
    ...composerRoutes(sessionOf, directoryOf),
    ...queueRoutes(sessionOf, runQueued),
    ...sessionRoutes(sessions, sessionOf, publishHost),
    ...historyRoutes(history, (found, mode, title, rows) => {
      const session = newSession({ cwd: found.cwd, title: title ?? found.title }, null, {
        continuedFrom: { claudeSessionId: found.claudeSessionId, mode, rows },
      });
      return { id: session.id, providerSessionId: session.detail.providerSessionId, session: session.summary() };
    }),
    [
      'GET',
      /^\/api\/attachments\/([^/]+)$/,
      async (m, _b, _r, response) => {
        const attachment = attachments.get(m[1]!);
        if (attachment === undefined) throw new HttpError('not_found', 'no such attachment');
        response.writeHead(200, { 'content-type': attachment.mediaType });
        response.end(attachment.bytes);
        return response;
      },
    ],
  ];

  /** An event stream held open until the client goes: `follow` writes its frames, heartbeats in between. */
  const openStream = (
    request: IncomingMessage,
    response: ServerResponse,
    follow: (write: (frame: string) => void) => () => void,
  ) => {
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    response.flushHeaders();
    streams.add(response);
    const write = (frame: string) => {
      if (!frozen) response.write(frame);
    };
    const unfollow = follow(write);
    const heartbeat = setInterval(
      () => write(`event: heartbeat\ndata: ${JSON.stringify({ time: Date.now() })}\n\n`),
      options.heartbeatMs ?? 15_000,
    );
    request.on('close', () => {
      clearInterval(heartbeat);
      unfollow();
      streams.delete(response);
    });
  };

  /** A replayed stream (the host's, a session's): what came after `Last-Event-ID`, then what comes. */
  const sse = (
    request: IncomingMessage,
    response: ServerResponse,
    log: { data: { seq: number } }[],
    subscribers: Set<(event: never) => void>,
  ) => {
    const header = request.headers['last-event-id'];
    const query = new URL(request.url ?? '/', 'http://x').searchParams.get('after');
    const after = Number(header ?? query ?? 0);
    openStream(request, response, (write) => {
      for (const event of log) if (event.data.seq > after) write(sseFrame(event as never));
      const subscriber = (event: never) => write(sseFrame(event));
      subscribers.add(subscriber);
      return () => subscribers.delete(subscriber);
    });
  };

  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://x');
      const method = request.method ?? 'GET';
      if (options.contentSecurityPolicy !== undefined)
        response.setHeader('content-security-policy', options.contentSecurityPolicy);
      try {
        if (method === 'GET' && url.pathname === '/api/events')
          return sse(request, response, hostLog, hostSubscribers as never);
        if (method === 'GET' && url.pathname === '/api/history/events')
          return openStream(request, response, (write) => history.subscribe(write));
        const events = /^\/api\/sessions\/([^/]+)\/events$/.exec(url.pathname);
        if (method === 'GET' && events !== null) {
          const session = sessionOf(events[1]!);
          return sse(request, response, session.log, session.subscribers as never);
        }
        if (url.pathname.startsWith('/api/')) {
          for (const [routeMethod, pattern, handle] of handlers) {
            const match = pattern.exec(url.pathname);
            if (match === null || routeMethod !== method) continue;
            const chunks: Buffer[] = [];
            for await (const chunk of request) chunks.push(chunk as Buffer);
            const text = Buffer.concat(chunks).toString('utf8');
            const result = await handle(match, text === '' ? {} : JSON.parse(text), request, response);
            if (result === response) return;
            if (result === undefined) {
              response.writeHead(204).end();
              return;
            }
            const status =
              method === 'POST' && /\/(sessions|tasks|fork|continue)$/.test(url.pathname)
                ? 201
                : url.pathname.endsWith('/turns')
                  ? 202
                  : 200;
            response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(result));
            return;
          }
          throw new HttpError('not_found', `no route ${method} ${url.pathname}`);
        }
        const path = url.pathname === '/' ? '/index.html' : normalize(url.pathname);
        const file = await readFile(join(options.distDir, path)).catch(() => undefined);
        if (file === undefined) {
          response.writeHead(404).end('not found');
          return;
        }
        response
          .writeHead(200, { 'content-type': contentTypes[extname(path)] ?? 'application/octet-stream' })
          .end(file);
      } catch (error) {
        const code: HostErrorCode =
          error instanceof HttpError
            ? error.code
            : (error as { name?: string }).name === 'ZodError'
              ? 'validation_failed'
              : 'internal';
        if (!response.headersSent)
          response.writeHead(hostErrorStatus[code], { 'content-type': 'application/json' }).end(
            JSON.stringify({
              error: {
                code,
                message: error instanceof Error ? error.message : String(error),
                ...(error instanceof HttpError && error.details.length > 0 ? { details: error.details } : {}),
                ...(error instanceof HttpError && error.sessionId !== undefined ? { sessionId: error.sessionId } : {}),
              },
            }),
          );
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    sessions,
    history,
    seedLongSession(count) {
      const session = newSession({ cwd: '/work/long', title: `Long session (${count} rows)` });
      const turns = Math.ceil(count / 2);
      const now = Date.now();
      const rows: MessageView[] = [];
      const turnViews = [];
      for (let turn = 0; turn < turns; turn++) {
        const turnId = `long-t${turn}`;
        turnViews.push({
          id: turnId,
          session_id: session.id,
          kind: 'user' as const,
          status: 'completed' as const,
          prompt: `Question ${turn}`,
          clientMessageId: null,
          providerTurnId: null,
          stopReason: 'end_turn',
          error: null,
          cancelDisposition: null,
          usage: null,
          createdAt: now,
          startedAt: now,
          endedAt: now + 1000,
        });
        for (const role of ['user', 'assistant'] as const) {
          if (rows.length >= count) break;
          rows.push({
            id: `${session.id}-long-${rows.length}`,
            session_id: session.id,
            turnId,
            position: rows.length,
            role,
            status: 'complete',
            content: [
              {
                type: 'text',
                text:
                  role === 'user'
                    ? `Question ${turn}: what does part ${turn} do?`
                    : `Part ${turn} **does** its job.\n\n- point one\n- point two`,
              },
            ],
            noticeKind: null,
            steer: false,
            clientMessageId: null,
            createdAt: now,
            updatedAt: now,
          });
        }
      }
      session.view = {
        ...session.view,
        rows: Object.fromEntries(rows.map((row) => [row.id, row])),
        order: rows.map((row) => row.id),
        turns: Object.fromEntries(
          turnViews.map((turn) => [turn.id, { ...turn, durationMs: 1000, cancelReason: null }]),
        ),
      };
      return session;
    },
    freezeStreams() {
      frozen = true;
    },
    close: async () => {
      for (const session of sessions.values()) session.running?.abort.abort(new Error('closing'));
      for (const stream of streams) stream.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

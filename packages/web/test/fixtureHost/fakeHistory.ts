import {
  continueHistoryBodySchema,
  type HistoryList,
  type HistoryNote,
  type HistoryProject,
  type HistorySession,
  type HistoryTranscript,
  hostLimits,
  type MessageView,
  type ToolUseBlock,
} from '@outrigger/host-api';
import { HttpError } from './httpError.ts';
import type { ReviewRoute } from './reviewRoutes.ts';

/*
 * Claude Code's history as the fixture host serves it (`/api/history…`): a few projects, one transcript with
 * every kind of row (text, thinking, a diff, a subagent with its own call) and notes, a session written a minute
 * ago (in use), one already continued, one whose directory is gone, and `history_changed` on a stream of its own.
 */

const MINUTE = 60_000;

/** A Claude Code session id for fixture session `n`. */
export const historyId = (n: number) => `c0ffee00-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** Well-known sessions the Chromium tests open. */
export const fixtureHistory = {
  /** The transcript with every kind of row and notes, in /work/project. */
  rich: historyId(1),
  /** Written a minute ago: may be open in a terminal. */
  inUse: historyId(2),
  /** Already resumed by an Outrigger session (made when the host starts). */
  continued: historyId(3),
  /** Its directory no longer exists. */
  gone: historyId(4),
  /** Long enough to page (250 rows). */
  long: historyId(5),
};

interface Entry {
  session: HistorySession;
  rows: MessageView[];
  notes: HistoryNote[];
}

export class FakeHistory {
  readonly #entries = new Map<string, Entry>();
  readonly #subscribers = new Set<(frame: string) => void>();
  #revision = 1;
  #next = 100;
  hiddenOutsideRoots = 3;
  indexState: HistoryList['indexState'] = 'ready';

  constructor() {
    const now = Date.now();
    this.#put(
      session(
        fixtureHistory.rich,
        '/work/project',
        'Add a --json flag to the CLI',
        now - 2 * 3_600_000,
        'feature/json',
      ),
      richRows(fixtureHistory.rich, now - 2 * 3_600_000),
      [
        {
          kind: 'corrupt_lines',
          message: '2 lines of the transcript could not be read (a cut-off write?): skipped.',
          count: 2,
        },
        { kind: 'outputs_cut', message: '1 tool output was longer than 20,000 characters: it is cut.', count: 1 },
      ],
    );
    this.#put(
      session(fixtureHistory.inUse, '/work/project', 'Refactor the config loader', now - MINUTE, 'main', {
        recentlyActive: true,
      }),
      simpleRows(fixtureHistory.inUse, 'Refactor the config loader', now - MINUTE),
      [],
    );
    this.#put(
      session(fixtureHistory.continued, '/work/api', 'Paginate the list endpoint', now - 26 * 3_600_000, 'main'),
      simpleRows(fixtureHistory.continued, 'Paginate the list endpoint', now - 26 * 3_600_000),
      [],
    );
    this.#put(
      session(fixtureHistory.gone, '/work/old-prototype', 'Spike: websockets', now - 40 * 86_400_000, null, {
        cwdExists: false,
      }),
      simpleRows(fixtureHistory.gone, 'Spike: websockets', now - 40 * 86_400_000),
      [{ kind: 'cwd_missing', message: '/work/old-prototype no longer exists.', count: null }],
    );
    this.#put(
      session(
        fixtureHistory.long,
        '/work/api',
        'Long investigation of the flaky test',
        now - 4 * 86_400_000,
        'fix/flaky',
      ),
      longRows(fixtureHistory.long, 250, now - 4 * 86_400_000),
      [],
    );
  }

  /** Marks a session as resumed by `sessionId` (as a continue in resume mode does). */
  markContinued(claudeSessionId: string, sessionId: string): void {
    const entry = this.#entry(claudeSessionId);
    entry.session = { ...entry.session, outriggerSessionId: sessionId };
    this.#changed([claudeSessionId]);
  }

  /** The transcript was just written to (a terminal has it open): it is `recentlyActive` from now on. */
  touch(claudeSessionId: string): void {
    const entry = this.#entry(claudeSessionId);
    entry.session = { ...entry.session, recentlyActive: true, lastActivityAt: Date.now() };
    this.#changed([claudeSessionId]);
  }

  /** A new terminal session appears (the directory watch saw it): `history_changed` follows. */
  add(title: string, cwd = '/work/project'): string {
    const id = historyId(this.#next++);
    const at = Date.now();
    this.#put(session(id, cwd, title, at, 'main'), simpleRows(id, title, at), []);
    this.#changed([id]);
    return id;
  }

  /** `count` generated sessions over 40 projects (a large history). */
  seed(count: number): void {
    const base = Date.now() - 10 * 86_400_000;
    const ids: string[] = [];
    for (let n = 0; n < count; n++) {
      const id = historyId(10_000 + n);
      const at = base - n * MINUTE;
      this.#put(
        session(id, `/work/generated/project-${n % 40}`, `Generated session ${n}`, at, `branch-${n % 7}`),
        simpleRows(id, `Generated session ${n}`, at),
        [],
      );
      ids.push(id);
    }
    this.#changed(ids);
  }

  list(q: string | undefined): HistoryList {
    const needle = q?.trim().toLowerCase();
    const byCwd = new Map<string, HistorySession[]>();
    const sessions = [...this.#entries.values()]
      .map((entry) => entry.session)
      .sort((a, b) => b.lastActivityAt - a.lastActivityAt);
    for (const found of sessions) {
      const haystack = [found.title, found.firstPrompt ?? '', found.cwd, found.gitBranch ?? '']
        .join('\n')
        .toLowerCase();
      if (needle !== undefined && needle !== '' && !haystack.includes(needle)) continue;
      byCwd.set(found.cwd, [...(byCwd.get(found.cwd) ?? []), found]);
    }
    const projects: HistoryProject[] = [...byCwd].map(([cwd, listed]) => ({
      cwd,
      cwdExists: listed[0]!.cwdExists,
      sessions: listed,
    }));
    return {
      configDir: '/home/me/.claude',
      projects,
      total: projects.reduce((sum, project) => sum + project.sessions.length, 0),
      hiddenOutsideRoots: this.hiddenOutsideRoots,
      indexState: this.indexState,
      revision: this.#revision,
    };
  }

  transcript(claudeSessionId: string, before: number | undefined, limit: number): HistoryTranscript {
    const entry = this.#entry(claudeSessionId);
    const all = entry.rows.filter((row) => before === undefined || row.position < before);
    const page = all.slice(-limit);
    return {
      session: entry.session,
      page: { messages: page, turns: [], hasMore: page.length < all.length },
      totalRows: entry.rows.length,
      notes: entry.notes,
    };
  }

  session(claudeSessionId: string): HistorySession {
    return this.#entry(claudeSessionId).session;
  }

  rowCount(claudeSessionId: string): number {
    return this.#entry(claudeSessionId).rows.length;
  }

  /** `GET /api/history/events`: `history_changed` frames from now on, no replay; returns the unsubscribe. */
  subscribe(write: (frame: string) => void): () => void {
    this.#subscribers.add(write);
    return () => this.#subscribers.delete(write);
  }

  #changed(claudeSessionIds: string[]): void {
    this.#revision += 1;
    const frame = `event: history_changed\ndata: ${JSON.stringify({ revision: this.#revision, claudeSessionIds })}\n\n`;
    for (const write of this.#subscribers) write(frame);
  }

  #put(found: HistorySession, rows: MessageView[], notes: HistoryNote[]): void {
    this.#entries.set(found.claudeSessionId, {
      session: { ...found, messageCount: rows.filter((row) => row.role !== 'system').length },
      rows,
      notes,
    });
  }

  #entry(claudeSessionId: string): Entry {
    const entry = this.#entries.get(claudeSessionId);
    if (entry === undefined) throw new HttpError('not_found', `no Claude Code session ${claudeSessionId}`);
    return entry;
  }
}

/**
 * The history routes. `create` makes the Outrigger session a continue asks for (as `createSession` answers);
 * the continue refuses as the host does: `already_continued` (naming the session), `history_in_use` unless
 * forked or forced, and a directory that is gone.
 */
export function historyRoutes(
  history: FakeHistory,
  create: (
    found: HistorySession,
    mode: 'resume' | 'fork',
    title: string | undefined,
    rows: number,
  ) => unknown & { id: string },
): ReviewRoute[] {
  return [
    [
      'GET',
      /^\/api\/history$/,
      async (_m, _b, request) =>
        history.list(new URL(request.url ?? '/', 'http://x').searchParams.get('q') ?? undefined),
    ],
    [
      'GET',
      /^\/api\/history\/([^/]+)\/messages$/,
      async (m, _b, request) => {
        const query = new URL(request.url ?? '/', 'http://x').searchParams;
        const before = query.get('before');
        return history.transcript(
          decodeURIComponent(m[1]!),
          before === null ? undefined : Number(before),
          Number(query.get('limit') ?? hostLimits.messagesPageDefault),
        );
      },
    ],
    [
      'POST',
      /^\/api\/history\/([^/]+)\/continue$/,
      async (m, body) => {
        const found = history.session(decodeURIComponent(m[1]!));
        const { mode, title, force } = continueHistoryBodySchema.parse(body);
        if (found.outriggerSessionId !== null && mode === 'resume')
          throw new HttpError(
            'already_continued',
            'an Outrigger session already continues this Claude Code session',
            [],
            found.outriggerSessionId,
          );
        if (!found.cwdExists)
          throw new HttpError('validation_failed', `Working directory: ${found.cwd} does not exist`, [
            { path: 'cwd', message: `${found.cwd} does not exist` },
          ]);
        if (found.recentlyActive && mode === 'resume' && force !== true)
          throw new HttpError(
            'history_in_use',
            'the transcript changed in the last minutes: it may be open in a terminal',
          );
        const created = create(found, mode, title, history.rowCount(found.claudeSessionId));
        if (mode === 'resume') history.markContinued(found.claudeSessionId, created.id);
        return created;
      },
    ],
  ];
}

function session(
  claudeSessionId: string,
  cwd: string,
  title: string,
  at: number,
  gitBranch: string | null,
  overrides: Partial<HistorySession> = {},
): HistorySession {
  return {
    claudeSessionId,
    cwd,
    title,
    firstPrompt: title,
    gitBranch,
    createdAt: at - 20 * MINUTE,
    lastActivityAt: at,
    messageCount: 0,
    bytes: 48_000,
    recentlyActive: false,
    cwdExists: true,
    outriggerSessionId: null,
    ...overrides,
  };
}

function rowsOf(
  sessionId: string,
  at: number,
  specs: Omit<
    MessageView,
    'id' | 'session_id' | 'position' | 'noticeKind' | 'steer' | 'clientMessageId' | 'createdAt' | 'updatedAt' | 'status'
  >[],
): MessageView[] {
  return specs.map((spec, position) => ({
    id: `${sessionId}-r${position}`,
    session_id: sessionId,
    position,
    status: 'complete',
    noticeKind: null,
    steer: false,
    clientMessageId: null,
    createdAt: at + position * 1000,
    updatedAt: at + position * 1000 + (spec.content[0]?.type === 'thinking' ? 3000 : 0),
    ...spec,
  }));
}

function toolBlock(
  id: string,
  name: string,
  input: Record<string, unknown>,
  at: number,
  overrides: Partial<ToolUseBlock> = {},
): ToolUseBlock {
  return {
    type: 'tool_use',
    id,
    name,
    callType: 'tool',
    input,
    status: 'completed',
    parentToolUseId: null,
    locations: [],
    fileChange: null,
    agentTask: null,
    background: null,
    output: null,
    startedAt: at,
    endedAt: at + 800,
    outcome: 'completed',
    decision: null,
    elapsedSeconds: null,
    ...overrides,
  };
}

const resultBlock = (toolUseId: string, content: string) => ({
  type: 'tool_result' as const,
  tool_use_id: toolUseId,
  content,
  is_error: false,
  resultSource: 'canonical' as const,
  truncated: false,
  length: content.length,
});

function richRows(id: string, at: number): MessageView[] {
  const turn = `${id}-prompt-1`;
  const edit = toolBlock(
    'toolu_hist_edit',
    'Edit',
    {
      file_path: '/work/project/src/cli.ts',
      old_string: 'const json = false;',
      new_string: "const json = args.includes('--json');",
    },
    at,
    {
      callType: 'file_change',
      locations: ['/work/project/src/cli.ts'],
      fileChange: {
        path: '/work/project/src/cli.ts',
        operation: 'edit',
        edits: [{ oldText: 'const json = false;', newText: "const json = args.includes('--json');" }],
        structuredPatch: [
          {
            oldStart: 3,
            oldLines: 3,
            newStart: 3,
            newLines: 3,
            lines: [
              ' const args = process.argv.slice(2);',
              '-const json = false;',
              "+const json = args.includes('--json');",
              ' run(args, { json });',
            ],
          },
        ],
      },
    },
  );
  const agent = toolBlock(
    'toolu_hist_agent',
    'Agent',
    { description: 'Find the output writers', prompt: 'Where is output printed?' },
    at,
    {
      callType: 'subagent',
      agentTask: {
        taskId: 'task-h1',
        agentId: 'explorer',
        status: 'completed',
        description: 'Find the output writers',
        summary: 'Two writers in src/print.ts',
        lastToolName: 'Grep',
        usage: null,
        updatedAt: at,
      },
    },
  );
  const grep = toolBlock('toolu_hist_grep', 'Grep', { pattern: 'console.log', path: 'src' }, at, {
    parentToolUseId: 'toolu_hist_agent',
  });
  return rowsOf(id, at, [
    { turnId: turn, role: 'user', content: [{ type: 'text', text: 'Add a --json flag to the CLI' }] },
    {
      turnId: turn,
      role: 'assistant',
      content: [{ type: 'thinking', thinking: 'The flag parsing lives in src/cli.ts; output goes through print.ts.' }],
    },
    {
      turnId: turn,
      role: 'assistant',
      content: [{ type: 'text', text: 'I will find where output is written first.' }],
    },
    {
      turnId: turn,
      role: 'assistant',
      content: [agent, resultBlock('toolu_hist_agent', 'Two writers in src/print.ts: `printTable` and `printLine`.')],
    },
    {
      turnId: turn,
      role: 'assistant',
      content: [grep, resultBlock('toolu_hist_grep', 'src/print.ts:4\nsrc/print.ts:12')],
    },
    {
      turnId: turn,
      role: 'assistant',
      content: [edit, resultBlock('toolu_hist_edit', 'The file /work/project/src/cli.ts has been updated.')],
    },
    {
      turnId: turn,
      role: 'assistant',
      content: [{ type: 'text', text: 'Added the **--json** flag: `cli --json` prints JSON.' }],
    },
  ]);
}

function simpleRows(id: string, title: string, at: number): MessageView[] {
  const turn = `${id}-prompt-1`;
  return rowsOf(id, at, [
    { turnId: turn, role: 'user', content: [{ type: 'text', text: title }] },
    { turnId: turn, role: 'assistant', content: [{ type: 'text', text: `Done: ${title.toLowerCase()}.` }] },
  ]);
}

function longRows(id: string, count: number, at: number): MessageView[] {
  return rowsOf(
    id,
    at,
    Array.from({ length: count }, (_, n) => ({
      turnId: `${id}-prompt-${Math.floor(n / 2)}`,
      role: n % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: [{ type: 'text' as const, text: n % 2 === 0 ? `Question ${n / 2}` : `Answer ${(n - 1) / 2}` }],
    })),
  );
}

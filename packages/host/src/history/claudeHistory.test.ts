import assert from 'node:assert/strict';
import { appendFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { claudeHistorySdk } from '@outrigger/claude-sdk-sidecar';
import type { HistoryChangedEvent, MessageView } from '@outrigger/host-api';
import { SqliteHostStore } from '../store/sqlite/sqliteHostStore.ts';
import { testSession } from '../store/testRecords.ts';
import { ClaudeHistory, type ClaudeHistoryOptions } from './claudeHistory.ts';
import type { TranscriptContent } from './claudeHistoryReader.ts';
import { projectFolderName, writeTranscript } from './testing/generatedHistory.ts';

/*
 * ClaudeHistory over the real SDK (its worker thread) and generated transcripts: what it lists and where, the
 * watch that adds a new terminal session without a reload, a damaged file that is neither listed nor fatal,
 * and the reads refused outside the roots. The transcript's rows come from a stub reader here: the real one
 * (`transcriptContent.ts`) has its own tests, and the host tests run both.
 */

let dir: string;
let roots: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'claude-history-'));
  roots = join(dir, 'roots');
  await mkdir(join(roots, 'app'), { recursive: true });
  await mkdir(join(dir, 'outside'), { recursive: true });
});
after(() => rm(dir, { recursive: true, force: true }));

/** One row per message, numbered: enough to check the paging. */
function stubRows(count: number): (sdk: unknown, entry: { claudeSessionId: string }) => Promise<TranscriptContent> {
  return async (_sdk, entry) => ({
    rows: Array.from(
      { length: count },
      (_, position): MessageView => ({
        id: `row-${position}`,
        session_id: entry.claudeSessionId,
        turnId: 'p',
        position,
        role: position % 2 === 0 ? 'user' : 'assistant',
        status: 'complete',
        content: [{ type: 'text', text: `row ${position}` }],
        noticeKind: null,
        steer: false,
        clientMessageId: null,
        createdAt: 0,
        updatedAt: 0,
      }),
    ),
    notes: [{ kind: 'corrupt_lines', message: '1 damaged line was skipped', count: 1 }],
  });
}

async function open(name: string, overrides: Partial<ClaudeHistoryOptions> = {}) {
  const configDir = join(dir, name);
  const store = SqliteHostStore.open({ path: ':memory:' });
  const history = new ClaudeHistory({
    configDir,
    sdk: claudeHistorySdk(configDir),
    store,
    allowRoots: [roots],
    debounceMs: 20,
    readContent: stubRows(7),
    ...overrides,
  });
  return {
    configDir,
    store,
    history,
    async [Symbol.asyncDispose]() {
      await history.close();
      await store.close();
    },
  };
}

function nextChange(history: ClaudeHistory, has: (event: HistoryChangedEvent) => boolean) {
  return new Promise<HistoryChangedEvent>((resolve) => {
    const off = history.onChange((event) => {
      if (!has(event)) return;
      off();
      resolve(event);
    });
  });
}

test('the list holds sessions under the roots only, with their fields and owners', { timeout: 30_000 }, async () => {
  await using h = await open('listing');
  const app = join(roots, 'app');
  const mine = await writeTranscript(h.configDir, {
    cwd: app,
    messages: 6,
    gitBranch: 'feature/x',
    firstPrompt: 'Fix it',
  });
  const gone = await writeTranscript(h.configDir, { cwd: join(roots, 'removed'), messages: 2 });
  await writeTranscript(h.configDir, { cwd: join(dir, 'outside'), messages: 2 });
  // A symlink inside the roots that points out of them is outside.
  await symlink(join(dir, 'outside'), join(roots, 'link'));
  await writeTranscript(h.configDir, { cwd: join(roots, 'link'), messages: 2 });
  await h.store.commit({ sessions: [testSession('o1', { providerSessionId: mine.sessionId })] });

  await h.history.indexed();
  const list = await h.history.list();
  assert.equal(list.indexState, 'ready');
  assert.equal(list.configDir, h.configDir);
  assert.equal(list.hiddenOutsideRoots, 2);
  assert.equal(list.total, 2);
  const sessions = list.projects.flatMap((project) => project.sessions);
  const session = sessions.find((each) => each.claudeSessionId === mine.sessionId);
  assert.deepEqual(
    { ...session, lastActivityAt: 0, createdAt: 0 },
    {
      claudeSessionId: mine.sessionId,
      cwd: app,
      title: 'Next step 2',
      firstPrompt: 'Fix it',
      gitBranch: 'feature/x',
      createdAt: 0,
      lastActivityAt: 0,
      messageCount: 6,
      bytes: mine.bytes,
      recentlyActive: true,
      cwdExists: true,
      outriggerSessionId: 'o1',
    },
  );
  assert.equal(sessions.find((each) => each.claudeSessionId === gone.sessionId)?.cwdExists, false);
  assert.deepEqual(
    (await h.history.list({ q: 'FEATURE/' })).projects.map((project) => project.cwd),
    [app],
  );
});

test('a new terminal session appears through the watch: onChange fires and the list has it', {
  timeout: 30_000,
}, async () => {
  await using h = await open('watched');
  await h.history.indexed();
  assert.equal((await h.history.list()).total, 0);
  const before = (await h.history.list()).revision;

  // `projects` did not exist: its creation, a new project folder, then the file, are all seen.
  const waiting = nextChange(h.history, (event) => event.claudeSessionIds.length > 0);
  const written = await writeTranscript(h.configDir, { cwd: join(roots, 'app'), messages: 4 });
  const event = await waiting;
  assert.deepEqual(event.claudeSessionIds, [written.sessionId]);
  assert.ok(event.revision > before);
  const list = await h.history.list();
  assert.equal(list.revision, event.revision);
  assert.deepEqual(
    list.projects.flatMap((project) =>
      project.sessions.map((session) => [session.claudeSessionId, session.messageCount]),
    ),
    [[written.sessionId, 4]],
  );

  // It grows: seen again, with its new count.
  const grown = nextChange(h.history, (each) => each.claudeSessionIds.includes(written.sessionId));
  await appendFile(
    written.path,
    `${JSON.stringify({
      parentUuid: null,
      isSidechain: false,
      type: 'user',
      message: { role: 'user', content: 'one more' },
      uuid: '99999999-9999-4999-8999-999999999999',
      timestamp: new Date().toISOString(),
      cwd: join(roots, 'app'),
      sessionId: written.sessionId,
      version: '2.1.332',
    })}\n`,
  );
  await grown;
  assert.ok((await h.history.session(written.sessionId))!.bytes > written.bytes);

  // It goes.
  const removed = nextChange(h.history, (each) => each.claudeSessionIds.includes(written.sessionId));
  await rm(written.path);
  await removed;
  assert.equal((await h.history.list()).total, 0);
});

test('an empty or damaged transcript is not listed and breaks nothing', { timeout: 30_000 }, async () => {
  await using h = await open('damaged');
  const cwd = join(roots, 'app');
  const good = await writeTranscript(h.configDir, { cwd, messages: 2 });
  const folder = join(h.configDir, 'projects', projectFolderName(cwd));
  const empty = '11111111-1111-4111-8111-111111111111';
  const damaged = '22222222-2222-4222-8222-222222222222';
  await writeFile(join(folder, `${empty}.jsonl`), '');
  await writeFile(join(folder, `${damaged}.jsonl`), '{"type":"user","mess\n\u0000\u0001garbage\n');
  await h.history.indexed();
  const list = await h.history.list();
  assert.deepEqual(
    list.projects.flatMap((project) => project.sessions.map((session) => session.claudeSessionId)),
    [good.sessionId],
  );
  assert.equal(list.hiddenOutsideRoots, 0);
  assert.equal(await h.history.session(empty), undefined);
  assert.equal(await h.history.page(damaged, {}), undefined);
});

test('a page is the newest rows first, then older by position; reads outside the roots find nothing', {
  timeout: 30_000,
}, async () => {
  await using h = await open('paging');
  const inside = await writeTranscript(h.configDir, { cwd: join(roots, 'gone-dir'), messages: 4 });
  const outside = await writeTranscript(h.configDir, { cwd: join(dir, 'outside'), messages: 4 });

  const first = await h.history.page(inside.sessionId, { limit: 3 });
  assert.deepEqual(
    first?.page.messages.map((row) => row.position),
    [4, 5, 6],
  );
  assert.equal(first?.page.hasMore, true);
  assert.deepEqual(first?.page.turns, []);
  assert.equal(first?.totalRows, 7);
  assert.deepEqual(
    first?.notes.map((note) => note.kind),
    ['corrupt_lines', 'cwd_missing'],
  );
  const last = await h.history.page(inside.sessionId, { before: 4, limit: 3 });
  assert.deepEqual(
    last?.page.messages.map((row) => row.position),
    [1, 2, 3],
  );
  const rest = await h.history.page(inside.sessionId, { before: 1, limit: 3 });
  assert.deepEqual([rest?.page.messages.map((row) => row.position), rest?.page.hasMore], [[0], false]);

  assert.equal(await h.history.page(outside.sessionId, {}), undefined);
  assert.equal(await h.history.session(outside.sessionId), undefined);
  assert.equal(await h.history.content(outside.sessionId), undefined);
  assert.equal(await h.history.session('not-a-uuid'), undefined);
  assert.equal(await h.history.session('../../../etc/passwd'), undefined);
  assert.equal(await h.history.session('33333333-3333-4333-8333-333333333333'), undefined);
});

test('session() finds a transcript written a moment ago, before any watch event', { timeout: 30_000 }, async () => {
  await using h = await open('unwatched', { watch: false });
  await h.history.indexed();
  const written = await writeTranscript(h.configDir, { cwd: join(roots, 'app'), messages: 6 });
  const session = await h.history.session(written.sessionId);
  assert.equal(session?.messageCount, 6);
  assert.equal(session?.cwd, join(roots, 'app'));
  assert.ok((await h.history.content(written.sessionId))?.rows.length === 7);
});

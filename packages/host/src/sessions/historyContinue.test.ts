import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { CreateSessionResponse, HistorySession, MessageView } from '@outrigger/host-api';
import type { ClaudeHistoryReader } from '../history/claudeHistoryReader.ts';
import { HostError } from '../hostError.ts';
import { testSession } from '../store/testRecords.ts';
import type { ClaudeTranscripts } from './claudeTranscripts.ts';
import { type ContinuedSessionInit, HistoryContinue } from './historyContinue.ts';

const CLAUDE_ID = '3f0c6c1e-2b7a-4d51-9a0e-1c2b3d4e5f60';

let cwd: string;
before(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'outrigger-continue-'));
});
after(() => rm(cwd, { recursive: true, force: true }));

function historySession(overrides: Partial<HistorySession> = {}): HistorySession {
  return {
    claudeSessionId: CLAUDE_ID,
    cwd,
    title: 'Fix the   build',
    firstPrompt: 'Fix the build',
    gitBranch: null,
    createdAt: 1,
    lastActivityAt: 1,
    messageCount: 4,
    bytes: 100,
    recentlyActive: false,
    cwdExists: true,
    outriggerSessionId: null,
    ...overrides,
  };
}

function setUp(found: HistorySession | undefined, options: { stored?: string; allowRoots?: string[] } = {}) {
  const launched: ContinuedSessionInit[] = [];
  const forks: string[] = [];
  const history: ClaudeHistoryReader = {
    session: async () => found,
    content: async () => ({ rows: [{} as MessageView, {} as MessageView, {} as MessageView], notes: [] }),
    onChange: () => () => undefined,
  };
  const transcripts: ClaudeTranscripts = {
    messages: async (id) => [{ type: 'assistant', uuid: `last-of-${id}`, message: {} }],
    fork: async (id) => {
      forks.push(id);
      return 'forked-id';
    },
    stat: async () => undefined,
  };
  let next = 0;
  const continuer = new HistoryContinue({
    history,
    transcripts,
    store: {
      findSessionByProviderSession: async (id) =>
        options.stored !== undefined && id === CLAUDE_ID ? testSession(options.stored) : undefined,
    },
    allowRoots: options.allowRoots ?? [],
    newId: () => `s${++next}`,
    launch: async (init) => {
      launched.push(init);
      await new Promise<void>((resolve) => setImmediate(resolve));
      return { id: init.id, providerSessionId: init.providerSessionId } as CreateSessionResponse;
    },
  });
  return { continuer, launched, forks };
}

const code = (expected: string, sessionId?: string) => (error: unknown) => {
  assert.ok(error instanceof HostError, String(error));
  assert.equal(error.code, expected);
  if (sessionId !== undefined) assert.equal(error.sessionId, sessionId);
  return true;
};

test('a resume starts a session on the Claude Code session itself, at its last message, with the rows before it', async () => {
  const { continuer, launched } = setUp(historySession());
  const created = await continuer.continue(CLAUDE_ID, { mode: 'resume' });
  assert.equal(created.providerSessionId, CLAUDE_ID);
  assert.deepEqual(launched, [
    {
      id: 's1',
      cwd,
      title: 'Fix the build',
      settings: { model: 'default', permissionMode: 'default', planMode: false, effort: null },
      providerSessionId: CLAUDE_ID,
      continuedFrom: { claudeSessionId: CLAUDE_ID, mode: 'resume', rows: 3 },
      resumeCursor: {
        kind: 'claude-agent-sdk',
        version: 1,
        resume: CLAUDE_ID,
        resumeSessionAt: `last-of-${CLAUDE_ID}`,
        turnCount: 0,
      },
    },
  ]);
});

test('a fork copies the transcript first and resumes the copy, also while the original is in use', async () => {
  const { continuer, launched, forks } = setUp(historySession({ recentlyActive: true, outriggerSessionId: 'other' }));
  const created = await continuer.continue(CLAUDE_ID, { mode: 'fork', title: 'Try it another way' });
  assert.equal(created.providerSessionId, 'forked-id');
  assert.deepEqual(forks, [CLAUDE_ID]);
  assert.equal(launched[0]?.title, 'Try it another way');
  assert.deepEqual(launched[0]?.continuedFrom, { claudeSessionId: CLAUDE_ID, mode: 'fork', rows: 3 });
  assert.equal(launched[0]?.resumeCursor.resumeSessionAt, 'last-of-forked-id');
});

test('refusals: the id, an unknown session, a gone or forbidden directory, in use, continued already', async () => {
  await assert.rejects(
    setUp(historySession()).continuer.continue('../etc', { mode: 'resume' }),
    code('validation_failed'),
  );
  await assert.rejects(setUp(undefined).continuer.continue(CLAUDE_ID, { mode: 'resume' }), code('not_found'));
  const gone = setUp(historySession({ cwdExists: false }));
  await assert.rejects(gone.continuer.continue(CLAUDE_ID, { mode: 'fork' }), (error: unknown) => {
    assert.ok(error instanceof HostError && error.code === 'validation_failed');
    assert.match(error.message, /no longer exists/);
    return true;
  });
  const outside = setUp(historySession(), { allowRoots: [join(cwd, 'elsewhere')] });
  await assert.rejects(outside.continuer.continue(CLAUDE_ID, { mode: 'fork' }), code('forbidden'));

  const inUse = setUp(historySession({ recentlyActive: true }));
  await assert.rejects(inUse.continuer.continue(CLAUDE_ID, { mode: 'resume' }), (error: unknown) => {
    assert.ok(error instanceof HostError && error.code === 'history_in_use');
    assert.match(error.message, /open in a terminal/);
    assert.match(error.message, /Fork it/);
    return true;
  });
  assert.equal(inUse.launched.length, 0);
  await inUse.continuer.continue(CLAUDE_ID, { mode: 'resume', force: true });
  assert.equal(inUse.launched.length, 1, 'force resumes it anyway');

  const indexed = setUp(historySession({ outriggerSessionId: 'o1' }));
  await assert.rejects(indexed.continuer.continue(CLAUDE_ID, { mode: 'resume' }), code('already_continued', 'o1'));
  const stored = setUp(historySession(), { stored: 'o2' });
  await assert.rejects(stored.continuer.continue(CLAUDE_ID, { mode: 'resume' }), code('already_continued', 'o2'));
  assert.equal(stored.launched.length, 0);
});

test('two resumes of one Claude Code session at once: the second is refused with the first one’s id', async () => {
  const { continuer, launched } = setUp(historySession());
  const [first, second] = await Promise.allSettled([
    continuer.continue(CLAUDE_ID, { mode: 'resume' }),
    continuer.continue(CLAUDE_ID, { mode: 'resume' }),
  ]);
  assert.equal(first.status, 'fulfilled');
  assert.equal(second.status, 'rejected');
  code('already_continued', 's1')(second.status === 'rejected' ? second.reason : undefined);
  assert.equal(launched.length, 1);
});

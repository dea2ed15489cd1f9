import assert from 'node:assert/strict';
import { test } from 'node:test';
import { historyTiming } from '@outrigger/host-api';
import type { HistoryTranscriptRecord } from '../store/hostStore.ts';
import type { CwdPlace } from './cwdPlaces.ts';
import { buildHistoryList, type ListedRecord, ownersById, sessionRecords } from './historyList.ts';

const NOW = Date.UTC(2026, 11, 1);

function record(
  id: string,
  cwd: string | null,
  overrides: Partial<HistoryTranscriptRecord> = {},
): HistoryTranscriptRecord {
  return {
    path: `/config/projects/${cwd ?? 'x'}/${id}.jsonl`,
    claudeSessionId: id,
    cwd,
    summary: `summary ${id}`,
    firstPrompt: `prompt ${id}`,
    customTitle: null,
    gitBranch: 'main',
    createdAt: 1,
    mtimeMs: NOW - 3_600_000,
    size: 100,
    messageCount: 2,
    indexedAt: NOW,
    ...overrides,
  };
}

const inside: CwdPlace = { inside: true, exists: true };

function list(records: HistoryTranscriptRecord[], places: Record<string, CwdPlace>, q?: string) {
  return buildHistoryList({
    records: sessionRecords(records),
    places: new Map(Object.entries(places)),
    owners: new Map([['b', 'outrigger-1']]),
    q,
    now: NOW,
    configDir: '/config',
    indexState: 'ready',
    revision: 3,
  });
}

test('sessions group by directory, newest first, and projects by their newest session', () => {
  const result = list(
    [
      record('a', '/w/one', { mtimeMs: NOW - 10_000 }),
      record('b', '/w/two', { mtimeMs: NOW - 5_000 }),
      record('c', '/w/one', { mtimeMs: NOW - 1_000 }),
      record('d', '/w/two', { mtimeMs: NOW - 50_000 }),
    ],
    { '/w/one': inside, '/w/two': { inside: true, exists: false } },
  );
  assert.deepEqual(
    result.projects.map((project) => [project.cwd, project.cwdExists, project.sessions.map((s) => s.claudeSessionId)]),
    [
      ['/w/one', true, ['c', 'a']],
      ['/w/two', false, ['b', 'd']],
    ],
  );
  assert.equal(result.total, 4);
  assert.equal(result.revision, 3);
  const b = result.projects[1]!.sessions[0]!;
  assert.equal(b.outriggerSessionId, 'outrigger-1');
  assert.equal(b.cwdExists, false);
  assert.equal(b.recentlyActive, NOW - b.lastActivityAt < historyTiming.recentlyActiveMs);
  assert.equal(result.projects[0]!.sessions[0]!.outriggerSessionId, null);
});

test('the title is the /rename name, else the summary, else the first prompt', () => {
  const result = list(
    [
      record('a', '/w', { customTitle: 'Named', mtimeMs: NOW - 1 }),
      record('b', '/w', { summary: null, mtimeMs: NOW - 2 }),
      record('c', '/w', { mtimeMs: NOW - 3 }),
    ],
    { '/w': inside },
  );
  assert.deepEqual(
    result.projects[0]!.sessions.map((session) => session.title),
    ['Named', 'prompt b', 'summary c'],
  );
});

test('only directories under the roots are listed; the rest are counted whatever the search', () => {
  const records = [record('a', '/w/in'), record('b', '/elsewhere'), record('c', '/elsewhere'), record('u', null)];
  const places = { '/w/in': inside, '/elsewhere': { inside: false, exists: true } };
  const all = list(records, places);
  assert.deepEqual(
    all.projects.map((project) => project.cwd),
    ['/w/in'],
  );
  assert.equal(all.total, 1);
  assert.equal(all.hiddenOutsideRoots, 2);
  // A transcript without a directory (the SDK could not summarise it) is not listed, nor counted.
  const searched = list(records, places, 'prompt c');
  assert.equal(searched.total, 0);
  assert.equal(searched.hiddenOutsideRoots, 2);
  // A directory with no decided place is outside (default deny).
  assert.equal(list([record('z', '/unknown')], {}).hiddenOutsideRoots, 1);
});

test('the search matches title, first prompt, directory and branch, case-insensitively and literally', () => {
  const records = [
    record('a', '/w/Alpha', { summary: 'Fix the Build', mtimeMs: NOW - 1 }),
    record('b', '/w/beta', { firstPrompt: 'why does 100% fail', mtimeMs: NOW - 2 }),
    record('c', '/w/gamma', { gitBranch: 'feature/Login', mtimeMs: NOW - 3 }),
  ];
  const places = { '/w/Alpha': inside, '/w/beta': inside, '/w/gamma': inside };
  const ids = (q: string) => list(records, places, q).projects.flatMap((p) => p.sessions.map((s) => s.claudeSessionId));
  assert.deepEqual(ids('build'), ['a']);
  assert.deepEqual(ids('ALPHA'), ['a']);
  assert.deepEqual(ids('100%'), ['b']);
  assert.deepEqual(ids('login'), ['c']);
  assert.deepEqual(ids('/w/'), ['a', 'b', 'c']);
  assert.deepEqual(ids('.*'), []);
});

test('two folders holding one session id list it once, from the newer file', () => {
  const [only] = sessionRecords([
    record('a', '/w', { path: '/p/one/a.jsonl', mtimeMs: 5 }),
    record('a', '/w', { path: '/p/two/a.jsonl', mtimeMs: 9 }),
  ]) as ListedRecord[];
  assert.equal(only?.path, '/p/two/a.jsonl');
});

test('a Claude Code session belongs to the oldest Outrigger session that ran as it', () => {
  const owners = ownersById([
    { providerSessionId: 'x', sessionId: 's2', closed: false, createdAt: 20 },
    { providerSessionId: 'x', sessionId: 's1', closed: true, createdAt: 10 },
    { providerSessionId: 'y', sessionId: 's2', closed: false, createdAt: 20 },
  ]);
  assert.deepEqual([...owners].sort(), [
    ['x', 's1'],
    ['y', 's2'],
  ]);
});

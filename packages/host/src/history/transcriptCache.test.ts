import assert from 'node:assert/strict';
import { appendFile, mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ClaudeHistorySdk } from '@outrigger/claude-sdk-sidecar';
import type { TranscriptContent } from './claudeHistoryReader.ts';
import { TranscriptWriter } from './testing/transcriptWriter.ts';
import { TranscriptContentCache } from './transcriptCache.ts';
import type { TranscriptLocation } from './transcriptContent.ts';

/* The cache of read transcripts: a hit while nothing changed, a new read when a file (or a subagent's) did. */

let root: string;
const cwd = '/work/cached-project';
const sdk = {} as ClaudeHistorySdk;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'outrigger-transcript-cache-'));
});

after(() => rm(root, { recursive: true, force: true }));

function countingCache(capacity?: number) {
  const reads: string[] = [];
  const cache = new TranscriptContentCache({
    capacity,
    read: async (_sdk, entry) => {
      reads.push(entry.path);
      return {
        rows: [],
        notes: [{ kind: 'empty', message: `read ${reads.length}`, count: null }],
      } as TranscriptContent;
    },
  });
  return { cache, reads };
}

async function transcript(name: string): Promise<TranscriptLocation & { writer: TranscriptWriter }> {
  const writer = new TranscriptWriter({ cwd: join(cwd, name) });
  writer.prompt('Hello');
  const path = await writer.write(join(root, 'config'));
  return { claudeSessionId: writer.sessionId, cwd: writer.cwd, path, writer };
}

test('paging an unchanged transcript reads it once; concurrent readers share the read', async () => {
  const { cache, reads } = countingCache();
  const entry = await transcript('paging');
  const [a, b] = await Promise.all([cache.content(sdk, entry), cache.content(sdk, entry)]);
  const c = await cache.content(sdk, entry);
  assert.equal(reads.length, 1);
  assert.equal(a, b);
  assert.equal(a, c);
});

test('a transcript that grew, or was touched, is read again', async () => {
  const { cache, reads } = countingCache();
  const entry = await transcript('growing');
  await cache.content(sdk, entry);
  await appendFile(entry.path, `${JSON.stringify({ type: 'last-prompt', lastPrompt: 'Hello' })}\n`);
  await cache.content(sdk, entry);
  const later = new Date(Date.now() + 60_000);
  await utimes(entry.path, later, later);
  await cache.content(sdk, entry);
  assert.equal(reads.length, 3);
});

test("a subagent's transcript that changed (it runs on in the background) is a change too", async () => {
  const { cache, reads } = countingCache();
  const entry = await transcript('subagent');
  await cache.content(sdk, entry);
  const sub = new TranscriptWriter({ cwd: entry.cwd, sessionId: entry.claudeSessionId, agentId: 'aagent' });
  sub.prompt('work');
  const subPath = await sub.writeSubagent(join(root, 'config'), entry.claudeSessionId, 'aagent');
  await cache.content(sdk, entry);
  await appendFile(subPath, `${JSON.stringify({ type: 'user', uuid: 'x', message: { content: 'more' } })}\n`);
  await cache.content(sdk, entry);
  await cache.content(sdk, entry);
  assert.equal(reads.length, 3);
});

test('it keeps a few transcripts, least recently used out first; a failed read is not kept', async () => {
  const { cache, reads } = countingCache(2);
  const [one, two, three] = await Promise.all([transcript('one'), transcript('two'), transcript('three')]);
  await cache.content(sdk, one);
  await cache.content(sdk, two);
  await cache.content(sdk, one); // one is now the most recent
  await cache.content(sdk, three); // two goes
  assert.equal(cache.size, 2);
  await cache.content(sdk, one);
  await cache.content(sdk, two);
  assert.deepEqual(reads, [one.path, two.path, three.path, two.path]);

  let attempts = 0;
  const failing = new TranscriptContentCache({
    read: async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('worker gone');
      return { rows: [], notes: [] };
    },
  });
  await assert.rejects(failing.content(sdk, one), /worker gone/);
  assert.deepEqual(await failing.content(sdk, one), { rows: [], notes: [] });
  assert.equal(attempts, 2);
});

test('a transcript that is gone rejects with ENOENT', async () => {
  const { cache } = countingCache();
  await assert.rejects(cache.content(sdk, { claudeSessionId: 'x', cwd, path: join(root, 'nothing.jsonl') }), {
    code: 'ENOENT',
  });
});

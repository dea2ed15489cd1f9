import assert from 'node:assert/strict';
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ClaudeHistorySdk } from '@outrigger/claude-sdk-sidecar';
import { sdkTranscripts } from './claudeTranscripts.ts';

/*
 * The transcripts the sessions read: the file found by the directory's folder name (or, for a directory whose
 * folder name Claude Code hashes, among the project folders), stat'ed; the SDK's messages without system ones.
 */

const ID = '3f0c6c1e-2b7a-4d51-9a0e-1c2b3d4e5f60';

let configDir: string;
before(async () => {
  configDir = await mkdtemp(join(tmpdir(), 'outrigger-transcripts-'));
});
after(() => rm(configDir, { recursive: true, force: true }));

/** The stat never reaches the SDK. */
const noSdk = {} as ClaudeHistorySdk;

test('a transcript is stat’ed where Claude Code writes it for its directory; a write changes the stat', async () => {
  const folder = join(configDir, 'projects', '-home-me-work');
  await mkdir(folder, { recursive: true });
  const path = join(folder, `${ID}.jsonl`);
  await writeFile(path, '{"type":"user"}\n');
  const transcripts = sdkTranscripts(configDir, noSdk);

  const first = await transcripts.stat(ID, '/home/me/work');
  assert.equal(first?.size, 16);
  await appendFile(path, '{"type":"assistant"}\n');
  const second = await transcripts.stat(ID, '/home/me/work');
  assert.equal(second?.size, 37);

  assert.equal(await transcripts.stat(ID, '/home/me/elsewhere'), undefined, 'another directory has no such file');
  assert.equal(await transcripts.stat('0f0c6c1e-2b7a-4d51-9a0e-1c2b3d4e5f60', '/home/me/work'), undefined);
  // A folder of that name is no transcript.
  await mkdir(join(configDir, 'projects', '-home-me-dir', `${ID}.jsonl`), { recursive: true });
  assert.equal(await transcripts.stat(ID, '/home/me/dir'), undefined);
});

test('a directory whose folder name Claude Code hashes: the file is found among the project folders', async () => {
  const long = `/${'deep/'.repeat(45)}project`;
  const folder = join(configDir, 'projects', '-deep-deep-hashed-1a2b3c');
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, `${ID}.jsonl`), 'x\n');
  const transcripts = sdkTranscripts(configDir, noSdk);
  assert.equal((await transcripts.stat(ID, long))?.size, 2);
  await appendFile(join(folder, `${ID}.jsonl`), 'y\n');
  assert.equal((await transcripts.stat(ID, long))?.size, 4, 'the path found is kept, the file stat’ed again');
});

test('messages are the SDK’s user and assistant messages; a fork passes the title', async () => {
  const calls: unknown[] = [];
  const sdk = {
    getSessionMessages: async (...args: unknown[]) => {
      calls.push(['messages', ...args]);
      return [
        { type: 'user', uuid: 'u1', message: { role: 'user', content: 'hi' }, session_id: ID },
        { type: 'system', uuid: 's1', message: {}, session_id: ID },
        { type: 'assistant', uuid: 'a1', message: { role: 'assistant', content: [] }, session_id: ID },
      ];
    },
    forkSession: async (...args: unknown[]) => {
      calls.push(['fork', ...args]);
      return { sessionId: 'forked' };
    },
  } as unknown as ClaudeHistorySdk;
  const transcripts = sdkTranscripts(configDir, sdk);
  assert.deepEqual(await transcripts.messages(ID, '/w'), [
    { type: 'user', uuid: 'u1', message: { role: 'user', content: 'hi' } },
    { type: 'assistant', uuid: 'a1', message: { role: 'assistant', content: [] } },
  ]);
  assert.equal(await transcripts.fork(ID, '/w', 'Another way'), 'forked');
  assert.equal(await transcripts.fork(ID, '/w'), 'forked');
  assert.deepEqual(calls, [
    ['messages', ID, { dir: '/w' }],
    ['fork', ID, { dir: '/w', title: 'Another way' }],
    ['fork', ID, { dir: '/w' }],
  ]);
});

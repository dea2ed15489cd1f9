import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { HostClient, SseFrame } from '@outrigger/host-api';
import { assertNoProcessesLeft, killMarkedProcesses } from './harness/processes.ts';
import { type ServeChild, spawnServe } from './harness/serveChild.ts';
import { isDoneOf, lastSeqOf, readEventsUntil, runTurnAllowing } from './harness/sseReader.ts';

/*
 * `outrigger serve` as `npm start` runs it without a key (issue 17): the demo model, the real sidecar and
 * Claude Code. Its file changes fill Files changed; a stop cuts a turn off in the words of a stop.
 */

let root: string;
const mark = randomUUID();
let serve: ServeChild | undefined;

const start = async (): Promise<ServeChild> => {
  serve = await spawnServe({
    args: ['--port', '0', '--data-dir', join(root, 'data')],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root },
    mark,
  });
  return serve;
};

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'outrigger-demo-serve-'));
});
after(async () => {
  try {
    await serve?.stop('SIGTERM');
    await assertNoProcessesLeft(mark);
  } finally {
    killMarkedProcesses(mark);
    await rm(root, { recursive: true, force: true });
  }
});

const dataOf = <T>(frame: SseFrame | undefined) => frame?.data as T;

async function changedPaths(client: HostClient, id: string): Promise<string[]> {
  const changes = await client.call('listChanges', { params: { id } });
  assert.equal(changes.error, null);
  return changes.session.files.map((file) => file.path).sort();
}

test('the demo’s approved command and its edit fill Files changed, with the edit’s lines', async () => {
  const { client } = await start();
  const info = await client.call('info');
  assert.equal(info.modelBackend, 'demo');
  const { id } = await client.call('createSession', { body: { cwd: info.defaultCwd } });

  const command = await runTurnAllowing(client, id, 'Run a command to create a file');
  assert.equal(dataOf<{ outcome: string }>(command.frames.at(-1)).outcome, 'completed');
  assert.deepEqual(await changedPaths(client, id), ['outrigger-demo/hello.txt'], 'the file the Bash command made');

  const edit = await runTurnAllowing(client, id, 'Edit a file and show me the diff');
  assert.equal(dataOf<{ outcome: string }>(edit.frames.at(-1)).outcome, 'completed');
  const asked = edit.frames
    .filter((frame) => frame.event === 'permission_request')
    .map((frame) => dataOf<{ interaction: { toolName: string } }>(frame).interaction.toolName);
  assert.deepEqual(asked, ['Write', 'Edit'], 'each change asked first');
  assert.deepEqual(await changedPaths(client, id), ['outrigger-demo/hello.txt', 'outrigger-demo/notes.md']);
  const notes = await readFile(join(info.defaultCwd, 'outrigger-demo', 'notes.md'), 'utf8');
  assert.match(notes, /Status: reviewed/, 'Claude Code applied the Write and the Edit');
  const changes = await client.call('listChanges', { params: { id } });
  const turn = changes.turns.find((item) => item.turnId === edit.turnId);
  const file = turn?.files.find((item) => item.path === 'outrigger-demo/notes.md');
  assert.equal(file?.status, 'added');
  assert.ok((file?.additions ?? 0) >= 5, `the turn's diff has the file's lines (${file?.additions})`);
  await client.call('closeSession', { params: { id } });
  assert.equal(await serve?.stop('SIGTERM'), 0);
});

test('SIGTERM mid-turn: the cut-off turn says the host was stopped, as it stops and after the next start', async () => {
  const { client } = await start();
  const info = await client.call('info');
  const { id } = await client.call('createSession', { body: { cwd: info.defaultCwd } });
  const from = await lastSeqOf(client, id);
  const { turnId } = await client.call('postTurn', { params: { id }, body: { prompt: 'Give me a slow, long answer' } });
  await readEventsUntil(client, id, (frame) => frame.event === 'text', { lastEventId: from });

  // A client still connected reads the turn's end as the host stops, before any restart.
  const seen = readEventsUntil(client, id, isDoneOf(turnId), { lastEventId: from, timeoutMs: 30_000 });
  const stopped = serve!.stop('SIGTERM');
  const done = dataOf<{ outcome: string; error: { message: string; code: string } }>((await seen).at(-1));
  assert.equal(await stopped, 0);
  assert.equal(done.outcome, 'interrupted');
  assert.equal(done.error.message, 'the host was stopped while the turn ran');
  assert.equal(done.error.code, 'host_stopped');

  const next = await start();
  const page = await next.client.call('listMessages', { params: { id } });
  const turn = page.turns.find((item) => item.id === turnId);
  assert.equal(turn?.status, 'interrupted');
  assert.equal(turn?.error?.message, 'the host was stopped while the turn ran', 'the restart did not reword it');
  assert.doesNotMatch(JSON.stringify(page), /restarted|crashed/);
  assert.equal(await serve?.stop('SIGTERM'), 0);
  serve = undefined;
});

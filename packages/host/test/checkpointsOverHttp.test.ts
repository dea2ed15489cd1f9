import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { HostApiError, type SseFrame } from '@outrigger/host-api';
import { runGit } from '../src/git/runGit.ts';
import { bashCall, caseScripts, slowText, text } from '../src/sessions/testing/scriptedModel.ts';
import { isDoneOf, lastSeqOf, readEventsUntil, runTurnAllowing } from './harness/sseReader.ts';
import { startTestHost, type TestHost } from './harness/testHost.ts';

/*
 * Review and undo (issue 18) over HTTP: the real host, sidecar and Claude Code against mock-anthropic, and
 * real git. A turn edits with Write and changes files with Bash; its checkpoints give its diff, and a rewind
 * gives the directory back byte for byte, ignored files untouched, the user's own `.git` never written.
 */

const cases = caseScripts();
let testHost: TestHost;

before(async () => {
  testHost = await startTestHost({ rules: [cases.rule] });
});
after(async () => {
  await testHost?.close();
});

const dataOf = <T = Record<string, unknown>>(frame: SseFrame | undefined) => frame?.data as T;
const identity = { GIT_AUTHOR_NAME: 'u', GIT_AUTHOR_EMAIL: 'u@u', GIT_COMMITTER_NAME: 'u', GIT_COMMITTER_EMAIL: 'u@u' };

/** Every path under `dir` but `.git`: its kind, its executable bit and its bytes' hash (a symlink: its target). */
async function treeOf(dir: string): Promise<Record<string, string>> {
  const tree: Record<string, string> = {};
  const walk = async (at: string) => {
    for (const entry of await readdir(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      const name = relative(dir, path);
      if (name === '.git') continue;
      const stat = await lstat(path);
      if (stat.isSymbolicLink()) tree[name] = `link ${await readlink(path)}`;
      else if (stat.isDirectory()) {
        tree[`${name}/`] = 'dir';
        await walk(path);
      } else {
        const hash = createHash('sha256')
          .update(await readFile(path))
          .digest('hex');
        tree[name] = `${stat.mode & 0o111 ? 'exec' : 'file'} ${hash}`;
      }
    }
  };
  await walk(dir);
  return tree;
}

/** What the user's own repository holds: HEAD, the index's bytes, the stash and the refs. */
async function userRepositoryState(dir: string): Promise<string[]> {
  const git = async (...args: string[]) => (await runGit(args, { cwd: dir })).stdout.toString();
  const index = createHash('sha256')
    .update(await readFile(join(dir, '.git', 'index')))
    .digest('hex');
  return [await git('rev-parse', 'HEAD'), index, await git('stash', 'list'), await git('for-each-ref')];
}

async function newSession(cwd: string, title: string): Promise<string> {
  const created = await testHost.client.call('createSession', {
    body: { cwd, title, permissionMode: 'acceptEdits' },
  });
  return created.id;
}

/** The checkpoint events a turn's frames carry, as `kind filesChanged`. */
function checkpointsIn(frames: readonly SseFrame[]): string[] {
  return frames
    .filter((frame) => frame.event === 'checkpoint')
    .map((frame) => {
      const data = dataOf<{ checkpoint: { kind: string } | null; filesChanged: number | null; error: string | null }>(
        frame,
      );
      return data.checkpoint === null ? `error ${data.error}` : `${data.checkpoint.kind} ${data.filesChanged}`;
    });
}

const CHANGE_SCRIPT = [
  "printf 'changed\\n' > a.txt",
  'rm gone.txt',
  "printf '\\000\\001\\002\\003' > data.bin",
  'chmod +x run.sh',
  'mkdir -p deep/dir',
  'echo nested > deep/dir/new.txt',
  'ln -s a.txt link-to-a',
  'echo rebuilt > build/out.log',
].join(' && ');

function changingTurn(label: string, writtenFile: string): string {
  return cases.prompt(label, {
    prompt: {
      content: [
        {
          type: 'tool_use',
          name: 'Write',
          input: { file_path: writtenFile, content: 'written by the agent\n' },
        },
      ],
    },
    afterTool: (view) =>
      view.toolResults.some((result) => result.toolName === 'Write')
        ? bashCall(CHANGE_SCRIPT)
        : text('The files are changed.'),
  });
}

async function seedRepository(dir: string, asGitRepository: boolean): Promise<void> {
  await mkdir(join(dir, 'build'), { recursive: true });
  await writeFile(join(dir, 'a.txt'), 'one\ntwo\nthree\n');
  await writeFile(join(dir, 'gone.txt'), 'to be deleted\n');
  await writeFile(join(dir, 'data.bin'), Buffer.from([0, 255, 0, 255]));
  await writeFile(join(dir, 'run.sh'), 'echo run\n', { mode: 0o644 });
  await writeFile(join(dir, '.gitignore'), 'build/\n');
  await writeFile(join(dir, 'build', 'out.log'), 'built once\n');
  if (!asGitRepository) return;
  await runGit(['init', '-q'], { cwd: dir });
  await runGit(['add', '-A'], { cwd: dir });
  await runGit(['commit', '-q', '-m', 'the user commit'], { cwd: dir, env: identity });
}

test('a turn that writes, edits, creates, deletes, chmods and links files: its diff, a dry run, a rewind byte for byte, its undo; the user repository untouched', async () => {
  const dir = join(testHost.cwd, 'repo');
  await mkdir(dir, { recursive: true });
  await seedRepository(dir, true);
  const sessionId = await newSession(dir, 'checkpoints in a repository');
  const before = await treeOf(dir);
  const userBefore = await userRepositoryState(dir);

  const prompt = changingTurn('change the files', join(dir, 'notes.md'));
  const { turnId, frames } = await runTurnAllowing(testHost.client, sessionId, prompt);
  assert.equal(dataOf<{ outcome: string }>(frames.at(-1)).outcome, 'completed');
  const afterTurn = await treeOf(dir);
  assert.equal(afterTurn['notes.md']?.startsWith('file '), true, 'the Write ran');
  assert.equal(afterTurn['run.sh']?.startsWith('exec '), true, 'the Bash ran');

  const changes = await testHost.client.call('listChanges', { params: { id: sessionId } });
  assert.equal(changes.error, null);
  const turn = changes.turns.find((item) => item.turnId === turnId);
  assert.ok(turn !== undefined, 'the turn has its changes');
  const byPath = Object.fromEntries(turn.files.map((file) => [file.path, file]));
  assert.deepEqual(Object.keys(byPath).sort(), [
    'a.txt',
    'data.bin',
    'deep/dir/new.txt',
    'gone.txt',
    'link-to-a',
    'notes.md',
    'run.sh',
  ]);
  assert.equal(byPath['notes.md']?.status, 'added');
  assert.equal(byPath['gone.txt']?.status, 'deleted');
  assert.equal(byPath['data.bin']?.binary, true);
  assert.deepEqual([byPath['run.sh']?.oldMode, byPath['run.sh']?.newMode], ['100644', '100755']);
  assert.equal(byPath['link-to-a']?.newMode, '120000');
  // The end checkpoint is taken once the turn is done: its event follows the `done`.
  const withEnd = await readEventsUntil(
    testHost.client,
    sessionId,
    (frame) => checkpointsIn([frame])[0]?.startsWith('turn_end') === true,
    { lastEventId: Number(frames[0]!.id) - 1 },
  );
  assert.deepEqual(checkpointsIn(withEnd), ['turn_start null', `turn_end ${turn.files.length}`]);
  assert.deepEqual(changes.session.files.map((file) => file.path).sort(), Object.keys(byPath).sort());

  const patch = await testHost.client.call('getFilePatch', {
    params: { id: sessionId },
    query: { from: turn.from!, to: turn.to!, path: 'a.txt' },
  });
  assert.equal(patch.hunks.length, 1);
  assert.ok(patch.hunks[0]!.lines.includes('+changed'));
  assert.ok(patch.hunks[0]!.lines.includes('-two'));

  assert.deepEqual(await userRepositoryState(dir), userBefore, "the user's HEAD, index, stash and refs are untouched");

  const plan = await testHost.client.call('rewind', { params: { id: sessionId }, body: { turnId, dryRun: true } });
  assert.equal(plan.dryRun, true);
  assert.equal(plan.safetyCheckpoint, null);
  assert.deepEqual(plan.files.map((file) => file.path).sort(), Object.keys(byPath).sort());
  assert.deepEqual(await treeOf(dir), afterTurn, 'a dry run changes nothing');

  const from = await lastSeqOf(testHost.client, sessionId);
  const rewound = await testHost.client.call('rewind', { params: { id: sessionId }, body: { turnId } });
  const restored = await treeOf(dir);
  assert.deepEqual(
    { ...restored, 'build/out.log': undefined },
    { ...before, 'build/out.log': undefined },
    'every file back as it was before the turn',
  );
  assert.equal(restored['build/out.log'], afterTurn['build/out.log'], 'the ignored file is untouched');
  assert.equal(restored['deep/'], undefined, 'the directory the turn made is gone');
  const event = await readEventsUntil(testHost.client, sessionId, (frame) => frame.event === 'files_rewound', {
    lastEventId: from,
  });
  assert.equal(
    dataOf<{ safetyCheckpoint: { id: string } }>(event.at(-1)).safetyCheckpoint.id,
    rewound.safetyCheckpoint?.id,
  );

  await testHost.client.call('rewind', {
    params: { id: sessionId },
    body: { checkpointId: rewound.safetyCheckpoint!.id },
  });
  assert.deepEqual(await treeOf(dir), afterTurn, 'rewinding to the safety checkpoint undoes the rewind');
  assert.deepEqual(await userRepositoryState(dir), userBefore, 'nor did the rewinds write into it');
  await testHost.client.call('closeSession', { params: { id: sessionId } });
});

test('in a directory that is no git repository: a Bash turn is checkpointed, a rewind refused while a turn runs, and after a host restart the rewind still works', async () => {
  const dir = join(testHost.cwd, 'plain');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'keep.txt'), 'kept\n');
  const sessionId = await newSession(dir, 'checkpoints without git');
  const before = await treeOf(dir);
  const { turnId } = await runTurnAllowing(
    testHost.client,
    sessionId,
    cases.prompt('make a file', {
      prompt: bashCall('echo made > made.txt && echo more >> keep.txt'),
      afterTool: () => text('Made.'),
    }),
  );
  const changes = await testHost.client.call('listChanges', { params: { id: sessionId } });
  assert.deepEqual(
    changes.turns.find((item) => item.turnId === turnId)?.files.map((file) => [file.path, file.status]),
    [
      ['keep.txt', 'modified'],
      ['made.txt', 'added'],
    ],
  );
  await assert.rejects(
    runGit(['rev-parse', '--git-dir'], { cwd: dir }),
    'the directory is still no git repository (nothing was written into it)',
  );

  // A slow turn runs: the rewind is refused, and changes nothing.
  const from = await lastSeqOf(testHost.client, sessionId);
  const slow = await testHost.client.call('postTurn', {
    params: { id: sessionId },
    body: { prompt: cases.prompt('talk for a while', { prompt: slowText(30) }) },
  });
  await readEventsUntil(testHost.client, sessionId, (frame) => frame.event === 'text', { lastEventId: from });
  const afterTurn = await treeOf(dir);
  await assert.rejects(
    testHost.client.call('rewind', { params: { id: sessionId }, body: { turnId } }),
    (error) => error instanceof HostApiError && error.status === 409,
  );
  assert.deepEqual(await treeOf(dir), afterTurn);
  await testHost.client.call('cancelTurn', { params: { id: sessionId, turnId: slow.turnId }, body: {} });
  await readEventsUntil(testHost.client, sessionId, isDoneOf(slow.turnId), { lastEventId: from });

  await assert.rejects(
    testHost.client.call('rewind', { params: { id: sessionId }, body: { checkpointId: 'f'.repeat(40) } }),
    (error) => error instanceof HostApiError && error.status === 404,
    'a checkpoint the session does not have is not_found',
  );

  await testHost.restart();
  await testHost.client.call('rewind', { params: { id: sessionId }, body: { turnId } });
  assert.deepEqual(await treeOf(dir), before, 'the checkpoints outlived the host');
  await testHost.client.call('closeSession', { params: { id: sessionId } });
});

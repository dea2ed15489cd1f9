import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { WORKING_TREE } from '@outrigger/host-api';
import { SessionCheckpoints } from './sessionCheckpoints.ts';
import { ShadowRepository } from './shadowRepository.ts';

const TURN_1 = '00000000-0000-4000-8000-000000000001';
const TURN_2 = '00000000-0000-4000-8000-000000000002';

/** A session's checkpoints over a fresh directory holding `a.txt`. */
async function setUp(t: TestContext) {
  const root = await mkdtemp(join(tmpdir(), 'outrigger-session-checkpoints-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  const work = join(root, 'work');
  await mkdir(work);
  await writeFile(join(work, 'a.txt'), 'one\n');
  const gitDir = join(root, 'data', 'session.git');
  const checkpoints = new SessionCheckpoints(() => ShadowRepository.open({ gitDir, workTree: work }));
  return { work, checkpoints };
}

const paths = (files: readonly { path: string }[]) => files.map((file) => file.path).sort();

test("the session's diff ends at its last turn's end while idle: a later edit in the shared directory is not its own", async (t) => {
  const { work, checkpoints } = await setUp(t);
  await checkpoints.record(TURN_1, 'start');
  await writeFile(join(work, 'a.txt'), 'two\n');
  const end = await checkpoints.record(TURN_1, 'end');
  // Another session (or the user) writes in the same directory after this session's turn ended.
  await writeFile(join(work, 'other.txt'), 'not ours\n');

  const idle = await checkpoints.changes([TURN_1], null);
  assert.equal(idle.session.to, end?.checkpoint.id);
  assert.deepEqual(paths(idle.session.files), ['a.txt']);

  // While a turn runs, the session's diff is the directory as it is.
  await checkpoints.record(TURN_2, 'start');
  const running = await checkpoints.changes([TURN_1, TURN_2], TURN_2);
  assert.equal(running.session.to, WORKING_TREE);
  assert.deepEqual(paths(running.session.files), ['a.txt', 'other.txt']);
});

test("after a rewind the session's diff is the directory as the rewind left it", async (t) => {
  const { work, checkpoints } = await setUp(t);
  const start = await checkpoints.record(TURN_1, 'start');
  await writeFile(join(work, 'a.txt'), 'two\n');
  await checkpoints.record(TURN_1, 'end');
  await new Promise((resolve) => setTimeout(resolve, 5));
  await checkpoints.rewind(start!.checkpoint.id, TURN_1, false);

  const changes = await checkpoints.changes([TURN_1], null);
  assert.equal(changes.session.to, WORKING_TREE);
  assert.deepEqual(changes.session.files, []);
});

test('a turn after the first checkpoint whose start was never taken is listed with why it has no diff', async (t) => {
  const { work, checkpoints } = await setUp(t);
  const before = '00000000-0000-4000-8000-000000000000';
  await checkpoints.record(TURN_1, 'start');
  await writeFile(join(work, 'a.txt'), 'two\n');
  await checkpoints.record(TURN_1, 'end');

  const changes = await checkpoints.changes([before, TURN_1, TURN_2], null);
  assert.deepEqual(
    changes.turns.map((turn) => [turn.turnId, turn.error]),
    [
      [TURN_1, null],
      [TURN_2, 'no checkpoint was taken when the turn started'],
    ],
  );
});

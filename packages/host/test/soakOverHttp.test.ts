import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runSoak } from './harness/soak.ts';

/*
 * The bounded soak of issue 11 (harness/soak.ts): 2 real Claude Code sessions (other test files may run Claude
 * Code beside it; the bench's soak runs 3) and 6 test-driver sessions on two hosts at once, turns running concurrently with cancels, approvals, queued and steered prompts interleaved.
 * 0 lost events (every client's live log equals the store's replay), 0 stuck turns, one done per turn, nothing
 * left open. 60 s by default; OUTRIGGER_SOAK_SECONDS runs it longer, OUTRIGGER_SOAK_SEED replays one.
 * Memory over the soak is a bench figure (bench/soakMemory.ts), not an assertion here.
 */

const seconds = Number(process.env.OUTRIGGER_SOAK_SECONDS ?? '60');
const seed = Number(process.env.OUTRIGGER_SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31));

test(`soak: ${seconds} s of concurrent turns, cancels, approvals, queues and steers on 2 real and 6 test-driver sessions`, {
  timeout: (seconds + 240) * 1_000,
}, async () => {
  const report = await runSoak({ durationMs: seconds * 1_000, realSessions: 2, driverSessions: 6, seed });
  console.log(`soak report (replay with OUTRIGGER_SOAK_SEED=${seed}): ${JSON.stringify(report)}`);
  assert.deepEqual(report.errors, [], 'every step of every worker went as expected');
  assert.equal(report.lostEvents, 0, 'no client missed a stored event');
  assert.equal(report.duplicatedEvents, 0, 'no client got an event twice');
  assert.equal(report.mismatchedEvents, 0, 'every event a client got is the stored one');
  assert.deepEqual(report.stuckTurns, [], 'every turn ended');
  assert.deepEqual(report.badDones, [], 'one done per turn, its last');
  assert.deepEqual(report.leftOpen, [], 'no turn, queued prompt or interaction left open');
  assert.ok(report.turns > 20, `the soak ran turns (${report.turns})`);
  for (const kind of ['real', 'driver']) {
    for (const action of ['answer', 'cancel', 'approve', 'refuse', 'queue', 'unqueue', 'steer']) {
      assert.ok((report.actions[`${kind} ${action}`] ?? 0) > 0, `the soak did ${kind} ${action}`);
    }
  }
});

import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { GoalTranscriptTail, projectKey, sessionTranscriptPath } from './goalTranscript.ts';

const root = mkdtempSync(join(tmpdir(), 'goal-transcript-'));
after(() => rmSync(root, { recursive: true, force: true }));

const row = (uuid: string, attachment: Record<string, unknown>) =>
  `${JSON.stringify({ type: 'attachment', uuid, sessionId: 's', attachment })}\n`;
const goalRow = (uuid: string, met: boolean) => row(uuid, { type: 'goal_status', met, condition: 'green' });
const uuidsOf = (rows: unknown[]) => rows.map((entry) => (entry as { uuid: string }).uuid);

/** Java's String.hashCode by its definition, sum of c[i]·31^(n-1-i) in 32-bit two's complement. */
function javaHashByDefinition(text: string): number {
  let sum = 0n;
  for (let index = 0; index < text.length; index++) {
    sum += BigInt(text.charCodeAt(index)) * 31n ** BigInt(text.length - 1 - index);
  }
  return Number(BigInt.asIntN(32, sum));
}

describe('projectKey', () => {
  it('replaces every non-alphanumeric character with a dash, as in the transcript paths Claude Code wrote', () => {
    // From a captured PostToolUse transcript_path (src/projection/fixtures/background-bash.json).
    assert.equal(projectKey('/tmp/h6cap-E10qS5/work'), '-tmp-h6cap-E10qS5-work');
    assert.equal(projectKey('/home/ünï code/a.b_c'), '-home--n--code-a-b-c');
  });

  it('cuts a key longer than 200 characters and appends the base-36 Java string hash of the path', () => {
    const path = `/${'deep/'.repeat(50)}project`;
    const key = projectKey(path);
    const suffix = Math.abs(javaHashByDefinition(path)).toString(36);
    assert.equal(key, `${path.replace(/[^a-zA-Z0-9]/g, '-').slice(0, 200)}-${suffix}`);
    assert.equal(projectKey(`/${'x'.repeat(199)}`).length, 200);
  });
});

describe('sessionTranscriptPath', () => {
  it('keys the project by the real path of cwd under the configured dir', () => {
    const real = join(root, 'real-work');
    mkdirSync(real);
    const link = join(root, 'link-work');
    symlinkSync(real, link);
    assert.equal(
      sessionTranscriptPath({ configDir: '/cfg', cwd: link, sessionId: 'abc' }),
      join('/cfg', 'projects', projectKey(real), 'abc.jsonl'),
    );
  });

  it('falls back to ~/.claude and to the resolved cwd when it does not exist', () => {
    assert.equal(
      sessionTranscriptPath({ configDir: ' ', cwd: '/no/such/dir', sessionId: 'abc' }),
      join(homedir(), '.claude', 'projects', '-no-such-dir', 'abc.jsonl'),
    );
  });
});

describe('GoalTranscriptTail', () => {
  it('reads only goal_status rows appended after it began following', async () => {
    const path = join(root, 'restored.jsonl');
    writeFileSync(path, goalRow('before', true));
    const tail = new GoalTranscriptTail();
    tail.follow(path);
    assert.deepEqual(await tail.drain(), []);
    appendFileSync(path, row('other', { type: 'queued_command' }) + goalRow('g1', false));
    appendFileSync(path, '{"type":"user","message":"mentions \\"goal_status\\""}\nnot json "goal_status"\n');
    appendFileSync(path, goalRow('g2', true));
    assert.deepEqual(uuidsOf(await tail.drain()), ['g1', 'g2']);
    assert.deepEqual(await tail.drain(), []);
    tail.follow(path);
    appendFileSync(path, goalRow('g3', true));
    assert.deepEqual(uuidsOf(await tail.drain()), ['g3']);
  });

  it('reads a file that did not exist yet from its start and waits for a row to be complete', async () => {
    const path = join(root, 'new.jsonl');
    const tail = new GoalTranscriptTail();
    tail.follow(path);
    assert.deepEqual(await tail.drain(), []);
    const line = goalRow('g1', true);
    appendFileSync(path, line.slice(0, 20));
    assert.deepEqual(await tail.drain(), []);
    appendFileSync(path, line.slice(20));
    assert.deepEqual(uuidsOf(await tail.drain()), ['g1']);
  });

  it('reads each row once across concurrent drains', async () => {
    const path = join(root, 'concurrent.jsonl');
    const tail = new GoalTranscriptTail();
    tail.follow(path);
    appendFileSync(path, goalRow('g1', true) + goalRow('g2', false));
    const [first, second] = await Promise.all([tail.drain(), tail.drain()]);
    assert.deepEqual([...uuidsOf(first), ...uuidsOf(second)], ['g1', 'g2']);
  });

  it('skips an overlong line without buffering it and reads the rows after it', async () => {
    const path = join(root, 'long.jsonl');
    const tail = new GoalTranscriptTail();
    tail.follow(path);
    appendFileSync(path, `{"type":"user","text":"${'x'.repeat(3 << 20)}`);
    assert.deepEqual(await tail.drain(), []);
    appendFileSync(path, `"goal_status"}\n${goalRow('g1', true)}`);
    assert.deepEqual(uuidsOf(await tail.drain()), ['g1']);
  });

  it('returns nothing after stop', async () => {
    const path = join(root, 'stopped.jsonl');
    const tail = new GoalTranscriptTail();
    tail.follow(path);
    tail.stop();
    appendFileSync(path, goalRow('g1', true));
    assert.deepEqual(await tail.drain(), []);
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testSession, testTurn } from '../store/testRecords.ts';
import type { ClaudeTranscripts, TranscriptMessage, TranscriptStat } from './claudeTranscripts.ts';
import { type OutsideChange, SessionOutside, TranscriptWatch } from './outsideChanges.ts';
import { answer, prompt } from './testing/transcriptMessages.ts';

function fakeTranscripts(messages: TranscriptMessage[]) {
  let current: TranscriptStat = { size: 100, mtimeMs: 1 };
  const calls = { stats: 0, reads: 0 };
  const transcripts: ClaudeTranscripts = {
    messages: async () => {
      calls.reads += 1;
      return messages;
    },
    fork: async () => 'fork',
    stat: async () => {
      calls.stats += 1;
      return current;
    },
  };
  return {
    transcripts,
    calls,
    grow: (size: number) => {
      current = { size, mtimeMs: current.mtimeMs + 1 };
    },
  };
}

test('the watch reads the messages only when the file changed since Outrigger last knew it', async () => {
  const messages = [prompt('p1', 'ours'), answer('a1', 'our answer')];
  const fake = fakeTranscripts(messages);
  const turns = [testTurn('s1', 't1', 0, { status: 'completed', providerTurnId: 'p1' })];
  const watch = new TranscriptWatch({ transcripts: fake.transcripts, turns: async () => turns });
  const session = testSession('s1', {
    resumeCursor: { kind: 'claude-agent-sdk', version: 1, resume: 'provider-s1', resumeSessionAt: 'a1', turnCount: 1 },
  });

  await watch.turnEnded(session);
  assert.equal(await watch.check(session, true), undefined);
  assert.deepEqual(fake.calls, { stats: 2, reads: 0 }, 'an unchanged file costs one stat');

  fake.grow(150); // Claude Code's bookkeeping when it exits: no message.
  assert.equal(await watch.check(session, true), undefined);
  assert.equal(fake.calls.reads, 1);
  assert.equal(await watch.check(session, true), undefined);
  assert.equal(fake.calls.reads, 1, 'looked at once');

  messages.push(prompt('p2', 'from the terminal'), answer('a2', 'terminal answer'));
  fake.grow(300);
  const change = await watch.check(session, true);
  assert.equal(change?.mark, 'a2');
  assert.equal(change?.turnId, 't1', 'under the newest ended turn');
  assert.equal(change?.messages, 2);
  assert.match(change?.text ?? '', /› from the terminal\n\nterminal answer$/);

  fake.grow(400);
  assert.equal(await watch.check({ ...session, closed: true }, true), undefined, 'a closed session is not watched');
  assert.equal(
    await watch.check({ ...session, backgroundTasks: [{ id: 'b', kind: 'bash', description: 'job' }] } as never, true),
    undefined,
    'not while its own background work runs',
  );
  assert.equal(fake.calls.reads, 2);
  assert.equal(await watch.check(testSession('s2'), false), undefined, 'a session without a transcript has nothing');
});

test('until its exchange ended, a change is returned but not taken as known: the next check shows it answered', async () => {
  const messages = [prompt('p1', 'ours'), answer('a1', 'our answer')];
  const fake = fakeTranscripts(messages);
  const turns = [testTurn('s1', 't1', 0, { status: 'completed', providerTurnId: 'p1' })];
  const watch = new TranscriptWatch({ transcripts: fake.transcripts, turns: async () => turns });
  const session = testSession('s1', {
    resumeCursor: { kind: 'claude-agent-sdk', version: 1, resume: 'provider-s1', resumeSessionAt: 'a1', turnCount: 1 },
  });
  await watch.turnEnded(session);

  messages.push(prompt('p2', 'from the terminal'));
  fake.grow(200);
  const waiting = await watch.check(session, true, { untilEnded: true });
  assert.equal(waiting?.ended, false);
  assert.equal(waiting?.messages, 1);
  const again = await watch.check(session, true, { untilEnded: true });
  assert.equal(again?.ended, false, 'the same file is read again while its exchange is open');

  messages.push(answer('a2', 'terminal answer'));
  fake.grow(300);
  const answered = await watch.check(session, true, { untilEnded: true });
  assert.equal(answered?.ended, true);
  assert.match(answered?.text ?? '', /2 new messages[\s\S]*› from the terminal\n\nterminal answer$/);
  assert.equal(await watch.check(session, true), undefined, 'taken as known once ended');

  messages.push(prompt('p3', 'another'));
  fake.grow(400);
  assert.equal((await watch.check(session, true))?.ended, false, 'before a turn it is taken as it is');
  assert.equal(await watch.check(session, true), undefined);
});

test('while idle, a prompt written outside waits for its answer; shown as it is once it stayed quiet long', async () => {
  const results: (OutsideChange | undefined)[] = [];
  const asked: boolean[] = [];
  const applied: unknown[] = [];
  let restarts = 0;
  let done: () => void = () => undefined;
  const outside = new SessionOutside({
    watch: {
      turnEnded: async () => undefined,
      check: async (_session, _hasTranscript, options) => {
        asked.push(options?.untilEnded ?? false);
        return results.shift();
      },
    },
    ledger: {
      sessionId: 's1',
      session: testSession('s1'),
      hasTranscript: () => true,
      liveTurns: () => [],
      queuedTurns: () => [],
      apply: async (command) => {
        applied.push(command);
        done();
        return undefined as never;
      },
    },
    restartClaudeCode: async () => {
      restarts += 1;
    },
    onQueue: (work) => void work(),
    logger: { info: () => undefined },
    logFailure: (error) => assert.fail(String(error)),
    quietMs: { ended: 5, unended: 60 },
  });
  const change = (ended: boolean, text: string): OutsideChange => ({
    text,
    mark: 'm',
    turnId: 't1',
    messages: 1,
    ended,
  });
  const shown = () => new Promise<void>((resolve) => (done = resolve));
  try {
    results.push(change(false, 'the prompt'), change(true, 'the prompt and its answer'));
    let notice = shown();
    const started = Date.now();
    outside.changed();
    await notice;
    assert.deepEqual(asked, [true, false], 'looked at once it was quiet, then again after the long quiet');
    assert.ok(Date.now() - started >= 55, 'the second look waits for the long quiet');
    assert.deepEqual(applied, [{ type: 'outsideChanges', turnId: 't1', text: 'the prompt and its answer', mark: 'm' }]);
    assert.equal(restarts, 1, 'Claude Code is started again once, for the change shown');

    results.push(change(false, 'a prompt'), change(true, 'a prompt, answered'));
    notice = shown();
    outside.changed();
    await new Promise((resolve) => setTimeout(resolve, 20));
    outside.changed(); // the answer is written: the short quiet again
    await notice;
    assert.deepEqual(asked.slice(2), [true, true]);
    assert.equal((applied.at(-1) as { text: string }).text, 'a prompt, answered');
  } finally {
    outside.stop();
  }
});

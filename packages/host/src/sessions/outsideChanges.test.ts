import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testSession, testTurn } from '../store/testRecords.ts';
import type { ClaudeTranscripts, TranscriptMessage, TranscriptStat } from './claudeTranscripts.ts';
import { outsideMessages, renderOutsideChanges, TranscriptWatch } from './outsideChanges.ts';

const prompt = (uuid: string, text: string): TranscriptMessage => ({
  type: 'user',
  uuid,
  message: { role: 'user', content: text },
});
const answer = (uuid: string, text: string): TranscriptMessage => ({
  type: 'assistant',
  uuid,
  message: { role: 'assistant', content: [{ type: 'text', text }] },
});
const toolCall = (uuid: string, name: string): TranscriptMessage => ({
  type: 'assistant',
  uuid,
  message: { role: 'assistant', content: [{ type: 'tool_use', id: 't', name, input: {} }] },
});
const toolResult = (uuid: string): TranscriptMessage => ({
  type: 'user',
  uuid,
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] },
});
const uuids = (messages: readonly TranscriptMessage[] | undefined) => messages?.map((message) => message.uuid);

test('after the mark, only exchanges whose prompt is no Outrigger turn are outside', () => {
  const conversation = [
    prompt('p1', 'ours'),
    answer('a1', 'our answer'),
    prompt('p2', 'from the terminal'),
    toolCall('a2', 'Bash'),
    toolResult('r2'),
    answer('a3', 'terminal answer'),
    prompt('p3', 'ours again (a failed turn)'),
    prompt('p4', 'terminal again'),
  ];
  assert.deepEqual(uuids(outsideMessages(conversation, 'a1', new Set(['p1', 'p3']))), ['p2', 'a2', 'a3', 'p4']);
  assert.deepEqual(uuids(outsideMessages(conversation, 'a3', new Set(['p1', 'p3']))), ['p4']);
  assert.deepEqual(uuids(outsideMessages(conversation, 'p4', new Set(['p1', 'p3']))), []);
  assert.equal(outsideMessages(conversation, 'gone', new Set()), undefined, 'a mark that is not there places nothing');
});

test('what follows the mark belongs to the mark’s exchange: Outrigger’s own, or an outside one answered later', () => {
  const conversation = [
    prompt('p1', 'ours'),
    answer('a1', 'our answer'),
    prompt('i1', '[Request interrupted by user]'),
    prompt('n1', '<task-notification><task-id>x</task-id></task-notification>'),
  ];
  assert.deepEqual(uuids(outsideMessages(conversation, 'a1', new Set(['p1']))), [], 'bookkeeping is no prompt');
  const answeredLater = [prompt('p1', 'ours'), answer('a1', 'ok'), prompt('p2', 'terminal'), answer('a2', 'late')];
  assert.deepEqual(
    uuids(outsideMessages(answeredLater, 'p2', new Set(['p1']))),
    ['a2'],
    'a notice showed the prompt; its answer came after it',
  );
  const continued = [prompt('h1', 'history'), answer('h2', 'history answer'), answer('h3', 'written since')];
  assert.deepEqual(uuids(outsideMessages(continued, 'h2', new Set())), ['h3'], 'the mark of a continued session');
});

test('the notice shows prompts and answers, each cut, and the newest when there are many', () => {
  const text = renderOutsideChanges([prompt('p', 'what now?'), toolCall('t', 'Bash'), answer('a', 'x'.repeat(5_000))]);
  assert.match(text, /3 new messages/);
  assert.match(text, /› what now\?/);
  assert.match(text, /\(used Bash\)/);
  assert.match(text, /x{1200}…$/);
  assert.ok(text.length < 2_000);
  const many = Array.from({ length: 60 }, (_, index) => prompt(`p${index}`, `prompt ${index}`));
  const rendered = renderOutsideChanges(many);
  assert.match(rendered, /… 36 earlier messages not shown/);
  assert.match(rendered, /› prompt 59$/);
  assert.doesNotMatch(rendered, /› prompt 35\n/);
});

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

test('a prompt with blank lines stays one message of the notice, which separates messages by blank lines', () => {
  const text = renderOutsideChanges([prompt('p', 'first part\n\nsecond part'), answer('a', 'done')]);
  const paragraphs = text.split('\n\n');
  assert.deepEqual(paragraphs.slice(1), ['› first part\nsecond part', 'done']);
});

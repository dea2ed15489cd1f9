import assert from 'node:assert/strict';
import { test } from 'node:test';
import { viewMessagesRequest } from './requestView.ts';
import { RuleBook } from './ruleBook.ts';
import { demoScenario, loadScenarioPack } from './scenarioPack.ts';
import type { MockReply } from './scenarioSchema.ts';

const reminder = '<system-reminder>context</system-reminder>\n';

function firstRequest(prompt: string) {
  return viewMessagesRequest({ messages: [{ role: 'user', content: [{ type: 'text', text: reminder + prompt }] }] }, 0);
}

function toolUseOf(reply: MockReply | undefined, name: string) {
  assert.ok(reply !== undefined && 'content' in reply, 'a message reply');
  const block = reply.content.find((item) => item.type === 'tool_use' && item.name === name);
  assert.ok(block?.type === 'tool_use', `a ${name} tool_use`);
  return block;
}

test('each demo keyword reaches its feature, and anything else the friendly fallback', () => {
  const book = new RuleBook(demoScenario.rules, 'demo');
  const cases: [string, string][] = [
    ['Please make a plan', 'plan: start'],
    ['show me your TODO list', 'plan: start'],
    ['run a command', 'command: start'],
    ['Edit a file and show me the diff', 'edit: write a file'],
    ['show a diff', 'edit: write a file'],
    ['start a background job', 'background: start'],
    ['run something in the background', 'background: start'],
    ['ask me a question', 'question: ask'],
    ['be slow so I can cancel', 'slow stream'],
    ['think first', 'thinking'],
    ['render some markdown', 'markdown'],
    ['hello', 'fallback'],
    ['planet', 'fallback'],
    ['credited', 'fallback'],
  ];
  for (const [prompt, rule] of cases) assert.equal(book.answer(firstRequest(prompt))?.ruleLabel, rule, prompt);
  const fallback = book.answer(firstRequest('hello'))?.reply;
  assert.ok(fallback !== undefined && 'content' in fallback && fallback.content[0]?.type === 'text');
  for (const keyword of ['markdown', 'plan', 'run', 'edit', 'ask', 'background', 'think', 'slow']) {
    assert.ok(fallback.content[0].text.includes(`\`${keyword}\``), `the fallback lists ${keyword}`);
  }
});

test('the demo plan advances through TodoWrite states until all are completed', () => {
  const book = new RuleBook(demoScenario.rules, 'demo');
  const messages: unknown[] = [{ role: 'user', content: 'make a plan' }];
  const statuses: string[][] = [];
  for (let step = 0; step < 10; step++) {
    const answer = book.answer(viewMessagesRequest({ messages }, step));
    const reply = answer?.reply;
    assert.ok(reply !== undefined && 'content' in reply);
    const todo = reply.content.find((block) => block.type === 'tool_use');
    if (todo === undefined) {
      assert.equal(answer?.ruleLabel, 'plan: summary');
      break;
    }
    const input = todo.type === 'tool_use' ? (todo.input as { todos: { status: string }[] }) : { todos: [] };
    statuses.push(input.todos.map((item) => item.status));
    const id = `toolu_${step}`;
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'TodoWrite', input }] });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: id, content: 'Todos have been modified' }],
    });
  }
  assert.deepEqual(statuses, [
    ['in_progress', 'pending', 'pending'],
    ['completed', 'in_progress', 'pending'],
    ['completed', 'completed', 'in_progress'],
    ['completed', 'completed', 'completed'],
  ]);
});

/** How long a reply's text and thinking blocks stream, as scripted (no pause before a block's first chunk). */
function streamMsOf(reply: MockReply | undefined): number {
  assert.ok(reply !== undefined && 'content' in reply);
  let total = 0;
  for (const block of reply.content) {
    if (block.type === 'tool_use') continue;
    const text = block.type === 'text' ? block.text : block.thinking;
    total += (Math.ceil(Array.from(text).length / (block.chunkSize ?? 32)) - 1) * (block.chunkDelayMs ?? 0);
  }
  return total;
}

test('each step of the demo plan streams for long enough to watch it in the Tasks panel', () => {
  const book = new RuleBook(demoScenario.rules, 'demo');
  const steps = demoScenario.rules.filter((rule) => rule.name?.startsWith('plan: '));
  assert.equal(steps.length, 5, 'start, three steps, summary');
  for (const rule of steps) {
    const ms = streamMsOf(rule.reply);
    assert.ok(ms >= 450 && ms <= 1200, `${rule.name} streams for ${ms} ms (0.45–1.2 s a step)`);
  }
  const total = steps.reduce((sum, rule) => sum + streamMsOf(rule.reply), 0);
  assert.ok(total >= 3000, `the whole plan takes ${total} ms of streaming (it took 1.1 s before)`);
  assert.equal(book.answer(firstRequest('make a plan'))?.ruleLabel, 'plan: start');
});

test('the demo edit writes a new file, then edits it; a declined step ends it with a word', () => {
  const book = new RuleBook(demoScenario.rules, 'demo');
  const prompt = 'edit a file';
  const write = toolUseOf(book.answer(firstRequest(prompt))?.reply, 'Write');
  assert.equal(write.input.file_path, 'outrigger-demo/notes.md');
  assert.match(String(write.input.content), /Status: draft/);
  const after = (name: string, input: unknown, content: string, isError = false) =>
    book.answer(
      viewMessagesRequest(
        {
          messages: [
            { role: 'user', content: prompt },
            { role: 'assistant', content: [{ type: 'tool_use', id: 'tu', name, input }] },
            { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu', content, is_error: isError }] },
          ],
        },
        1,
      ),
    );
  const edit = toolUseOf(after('Write', write.input, 'File created successfully')?.reply, 'Edit');
  assert.equal(edit.input.file_path, write.input.file_path);
  assert.ok(String(write.input.content).includes(String(edit.input.old_string)), 'the Edit changes what was written');
  assert.equal(after('Edit', edit.input, 'The file has been updated')?.ruleLabel, 'edit: done');
  assert.equal(after('Write', write.input, 'User denied', true)?.ruleLabel, 'edit: write declined');
  assert.equal(after('Edit', edit.input, 'User denied', true)?.ruleLabel, 'edit: edit declined');
});

test('the demo command needs permission and the background job runs in the background', () => {
  const book = new RuleBook(demoScenario.rules, 'demo');
  const command = toolUseOf(book.answer(firstRequest('run a command'))?.reply, 'Bash');
  assert.match(String(command.input.command), /mkdir|>/, 'a command that writes, so Claude Code asks first');
  const background = toolUseOf(book.answer(firstRequest('background please'))?.reply, 'Bash');
  assert.equal(background.input.run_in_background, true);
  const notification = viewMessagesRequest(
    {
      messages: [
        { role: 'user', content: 'background please' },
        { role: 'assistant', content: [{ type: 'text', text: 'started' }] },
        {
          role: 'user',
          content:
            '<system-reminder><task-notification><status>completed</status></task-notification></system-reminder>',
        },
      ],
    },
    3,
  );
  assert.equal(book.answer(notification)?.ruleLabel, 'background: finished');
});

test('the slow stream lasts long enough to cancel', () => {
  const reply = new RuleBook(demoScenario.rules, 'demo').answer(firstRequest('slow'))?.reply;
  assert.ok(reply !== undefined && 'content' in reply && reply.content[0]?.type === 'text');
  const { text, chunkSize = 1, chunkDelayMs = 0 } = reply.content[0];
  const streamMs = (Math.ceil(Array.from(text).length / chunkSize) - 1) * chunkDelayMs;
  assert.ok(streamMs >= 15_000, `scripted to stream for at least 15 s, got ${streamMs} ms`);
});

test('loadScenarioPack refuses names that are not a bundled pack', () => {
  assert.equal(loadScenarioPack('demo').name, 'demo');
  assert.throws(() => loadScenarioPack('../package'), /unknown scenario pack/);
  assert.throws(() => loadScenarioPack('nope'), /scenario nope\.json: \(root\): cannot read/);
});

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
    ['start a background job', 'background: start'],
    ['run something in the background', 'background: start'],
    ['ask me a question', 'question: ask'],
    ['be slow so I can cancel', 'slow stream'],
    ['think first', 'thinking'],
    ['render some markdown', 'markdown'],
    ['hello', 'fallback'],
    ['planet', 'fallback'],
  ];
  for (const [prompt, rule] of cases) assert.equal(book.answer(firstRequest(prompt))?.ruleLabel, rule, prompt);
  const fallback = book.answer(firstRequest('hello'))?.reply;
  assert.ok(fallback !== undefined && 'content' in fallback && fallback.content[0]?.type === 'text');
  for (const keyword of ['markdown', 'plan', 'run', 'ask', 'background', 'think', 'slow']) {
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

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MessagesRequestView } from './requestView.ts';
import { matchesRule, RuleBook } from './ruleBook.ts';
import { ScenarioError } from './scenarioLoader.ts';
import type { MockReply } from './scenarioSchema.ts';

function view(overrides: Partial<MessagesRequestView> = {}): MessagesRequestView {
  return {
    index: 0,
    body: {},
    lastUserText: '',
    toolResults: [],
    isNewPrompt: true,
    taskNotification: undefined,
    ...overrides,
  };
}

const say = (text: string): MockReply => ({ content: [{ type: 'text', text }] });
const bashResult = {
  toolUseId: 't1',
  toolName: 'Bash',
  content: 'made',
  isError: false,
  toolInput: { command: 'touch a' },
};

test('userText matches by substring or regex, only on a fresh prompt unless scoped to a follow-up', () => {
  assert.equal(matchesRule({ userText: 'plan' }, view({ lastUserText: 'make a plan' })), true);
  assert.equal(matchesRule({ userText: 'Plan' }, view({ lastUserText: 'make a plan' })), false);
  assert.equal(matchesRule({ userText: { regex: '^make', flags: 'i' } }, view({ lastUserText: 'MAKE a plan' })), true);
  const followUp = view({ lastUserText: 'make a plan', isNewPrompt: false, toolResults: [bashResult] });
  assert.equal(matchesRule({ userText: 'plan' }, followUp), false);
  assert.equal(matchesRule({ userText: 'plan', toolResult: 'Bash' }, followUp), true);
  assert.equal(matchesRule({ userText: 'other', toolResult: 'Bash' }, followUp), false);
});

test('toolResult matches by name, error flag, content and a partial input', () => {
  const request = view({ toolResults: [bashResult], isNewPrompt: false });
  assert.equal(matchesRule({ toolResult: 'Bash' }, request), true);
  assert.equal(matchesRule({ toolResult: 'Write' }, request), false);
  assert.equal(matchesRule({ toolResult: { name: 'Bash', isError: true } }, request), false);
  assert.equal(matchesRule({ toolResult: { content: { regex: '^made$' } } }, request), true);
  assert.equal(matchesRule({ toolResult: { input: { command: 'touch a' } } }, request), true);
  assert.equal(matchesRule({ toolResult: { input: { command: 'rm a' } } }, request), false);
  const todo = view({
    toolResults: [
      {
        ...bashResult,
        toolName: 'TodoWrite',
        toolInput: {
          todos: [
            { content: 'a', status: 'completed' },
            { content: 'b', status: 'in_progress' },
          ],
        },
      },
    ],
  });
  assert.equal(
    matchesRule({ toolResult: { input: { todos: [{ status: 'completed' }, { status: 'in_progress' }] } } }, todo),
    true,
  );
  assert.equal(matchesRule({ toolResult: { input: { todos: [{ status: 'in_progress' }] } } }, todo), false);
  assert.equal(matchesRule({ toolResult: { input: { todos: [{}, {}, {}] } } }, todo), false, 'more items than present');
});

test('taskNotification and requestIndex', () => {
  const notified = view({ taskNotification: '<status>completed</status>', isNewPrompt: false });
  assert.equal(matchesRule({ taskNotification: true }, notified), true);
  assert.equal(matchesRule({ taskNotification: false }, notified), false);
  assert.equal(matchesRule({ taskNotification: 'completed' }, notified), true);
  assert.equal(matchesRule({ taskNotification: 'failed' }, notified), false);
  assert.equal(matchesRule({ taskNotification: true }, view()), false);
  assert.equal(matchesRule({ requestIndex: 2 }, view({ index: 2 })), true);
  assert.equal(matchesRule({ requestIndex: 2 }, view({ index: 1 })), false);
  assert.equal(matchesRule({}, view({ isNewPrompt: false })), true, 'an empty match takes everything');
});

test('rules are tried in order, `times` limits a rule, function rules may pass', () => {
  const seen: number[] = [];
  const book = new RuleBook(
    [
      (request) => {
        seen.push(request.index);
        return request.index === 5 ? say('from function') : undefined;
      },
      { name: 'once', match: { userText: 'hi' }, times: 1, reply: { error: { status: 529 } } },
      { match: { userText: 'hi' }, reply: say('second') },
    ],
    'test rules',
  );
  assert.deepEqual(book.answer(view({ lastUserText: 'hi' })), { reply: { error: { status: 529 } }, ruleLabel: 'once' });
  assert.deepEqual(book.answer(view({ lastUserText: 'hi', index: 1 })), {
    reply: say('second'),
    ruleLabel: 'rules[2]',
  });
  assert.deepEqual(book.answer(view({ lastUserText: 'hi', index: 5 })), {
    reply: say('from function'),
    ruleLabel: 'rules[0] (function)',
  });
  assert.equal(book.answer(view({ lastUserText: 'bye', index: 6 })), undefined);
  assert.deepEqual(seen, [0, 1, 5, 6]);
});

test('rule objects and function replies are validated with their path', () => {
  assert.throws(
    () => new RuleBook([{ reply: { content: [{ type: 'txt', text: 'x' }] } } as never], 'opts'),
    (error: unknown) =>
      error instanceof ScenarioError && /^scenario opts: rules\[0\]\.reply\.content\[0\]\.type: /.test(error.message),
  );
  const book = new RuleBook([() => ({ stall: false }) as never], 'opts');
  assert.throws(() => book.answer(view()), /reply\.stall/);
});

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type PostToolUseHookInput, query } from '@anthropic-ai/claude-agent-sdk';
import { type MockAnthropic, type MockRule, startMockAnthropic } from '@outrigger/mock-anthropic';
import { type ClaudeTestHome, createClaudeTestHome } from '@outrigger/mock-anthropic/testing';
import { recordEvents } from './fixtures/sdkFixtures.ts';
import { createStreamProjector } from './streamProjector.ts';

/*
 * The projector wired to the real SDK and the real Claude Code binary, as the runtime wires it:
 * every SDK message through `project`, the PostToolUse hook through `postToolUse`.
 */

const TURN = 'turn-real';
const TODO_CALL = 'toolu_projection_todo';
const ANSWER = 'Planned both steps, starting with the parser.';
const TODOS = [
  { content: 'Write the parser', status: 'in_progress', activeForm: 'Writing the parser' },
  { content: 'Test the parser', status: 'pending', activeForm: 'Testing the parser' },
];
const TURN_TIMEOUT_MS = 60_000;

const rules: MockRule[] = [
  (request) =>
    request.toolResults.some((result) => result.toolUseId === TODO_CALL)
      ? { content: [{ type: 'text', text: ANSWER, chunkSize: 7 }], stopReason: 'end_turn' }
      : undefined,
  (request) =>
    request.lastUserText.includes('Plan the parser work')
      ? {
          content: [{ type: 'tool_use', id: TODO_CALL, name: 'TodoWrite', input: { todos: TODOS } }],
          stopReason: 'tool_use',
        }
      : undefined,
];

let mock: MockAnthropic;
let home: ClaudeTestHome;

before(async () => {
  mock = await startMockAnthropic({ rules });
  home = await createClaudeTestHome({
    baseUrl: mock.url,
    env: { CLAUDE_CODE_ENABLE_TODO_TOOLS: '1', CLAUDE_CODE_ENABLE_TASKS: '0' },
  });
});

after(async () => {
  await mock?.close();
  await home?.cleanup();
});

test('a real TodoWrite turn: plan, hook then canonical result, streamed answer', async () => {
  const { events, emit } = recordEvents();
  const projector = createStreamProjector({ emit });
  const claude = query({
    prompt: 'Plan the parser work',
    options: {
      cwd: home.cwd,
      env: home.env,
      includePartialMessages: true,
      hooks: {
        PostToolUse: [
          {
            hooks: [
              async (input, toolUseId) => {
                projector.postToolUse(input as PostToolUseHookInput, toolUseId, TURN);
                return { continue: true };
              },
            ],
          },
        ],
      },
    },
  });
  const timeout = setTimeout(() => claude.close(), TURN_TIMEOUT_MS);
  let result: string | undefined;
  try {
    for await (const message of claude) {
      projector.project(message, TURN);
      if (message.type === 'result') {
        result = message.subtype;
        break;
      }
    }
  } finally {
    clearTimeout(timeout);
    claude.close();
  }
  assert.equal(result, 'success', `the turn ended with a result within ${TURN_TIMEOUT_MS} ms`);
  assert.deepEqual(mock.unmatched, []);

  assert.deepEqual(
    events.filter((event) => event.type === 'plan_updated').map((event) => event.payload),
    [
      {
        turnId: TURN,
        entries: [
          { id: 'todo-0', content: 'Write the parser', status: 'in_progress', description: 'Writing the parser' },
          { id: 'todo-1', content: 'Test the parser', status: 'pending', description: 'Testing the parser' },
        ],
      },
    ],
  );

  const completions = events.filter(
    (event) => event.type === 'tool_completed' && event.payload.toolCallId === TODO_CALL,
  );
  assert.deepEqual(
    completions.map((event) => (event.payload.metadata as { resultSource?: string }).resultSource),
    ['hook', 'canonical'],
  );

  const deltas = events.filter((event) => event.type === 'assistant_delta').map((event) => event.payload);
  assert.ok(deltas.length > 1, `the answer streamed in several deltas (got ${deltas.length})`);
  assert.equal(deltas.map((delta) => delta.content).join(''), ANSWER);
  assert.equal(deltas.at(-1)?.snapshot, ANSWER);
  const completed = events.filter((event) => event.type === 'assistant_completed').map((event) => event.payload);
  assert.deepEqual(completed, [{ turnId: TURN, messageId: deltas[0]?.messageId, content: ANSWER }]);
});

import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import {
  type CanUseTool,
  type HookInput,
  type Query,
  query,
  type SDKMessage,
  type SDKResultMessage,
  type SDKUserMessage,
} from '@anthropic-ai/claude-agent-sdk';
import { type MockAnthropic, startMockAnthropic } from './mockAnthropic.ts';
import { viewMessagesRequest } from './requestView.ts';
import { demoScenario } from './scenarioPack.ts';
import { type ClaudeTestHome, createClaudeTestHome } from './testing/index.ts';

// One real Claude Code process serves every turn below, so the file pays for a single start.
const turnTimeoutMs = 30_000;

let mock: MockAnthropic;
let home: ClaudeTestHome;
let session: Query;
let input: UserMessageQueue;
let messages: AsyncIterator<SDKMessage>;
const permissionRequests: string[] = [];
const postToolUses: HookInput[] = [];

const allowEverything: CanUseTool = async (toolName, toolInput) => {
  permissionRequests.push(toolName);
  if (toolName !== 'AskUserQuestion') return { behavior: 'allow', updatedInput: toolInput };
  // Claude Code takes the user's answer to AskUserQuestion through the permission callback.
  const answers = { 'Which database should the demo app use?': 'SQLite' };
  return { behavior: 'allow', updatedInput: { ...toolInput, answers } };
};

before(async () => {
  mock = await startMockAnthropic({
    rules: [
      {
        match: { userText: 'plain answer please' },
        reply: { content: [{ type: 'text', text: 'A plain streamed answer.', chunkSize: 4 }] },
      },
      {
        match: { userText: 'overloaded then fine' },
        times: 1,
        reply: { error: { status: 529, retryAfterSeconds: 0 } },
      },
      {
        match: { userText: 'overloaded then fine' },
        reply: { content: [{ type: 'text', text: 'Recovered after the overload.' }] },
      },
    ],
    scenario: demoScenario,
  });
  home = await createClaudeTestHome({
    baseUrl: mock.url,
    env: { CLAUDE_CODE_ENABLE_TODO_TOOLS: '1', CLAUDE_CODE_ENABLE_TASKS: '0' },
  });
  input = new UserMessageQueue();
  session = query({
    prompt: input,
    options: {
      cwd: home.cwd,
      env: home.env,
      permissionMode: 'default',
      canUseTool: allowEverything,
      hooks: {
        PostToolUse: [
          {
            hooks: [
              async (hookInput) => {
                postToolUses.push(hookInput);
                return { continue: true };
              },
            ],
          },
        ],
      },
    },
  });
  messages = session[Symbol.asyncIterator]();
});

after(async () => {
  // The last turn was interrupted: closing (not ending the input) avoids the exit-code-1 path.
  session?.close();
  await mock?.close();
  await home?.cleanup();
});

test('a plain answer streams through the real Claude Code', async () => {
  const result = await runTurn('plain answer please');
  assert.equal(result.subtype, 'success');
  assert.equal(result.subtype === 'success' ? result.result : undefined, 'A plain streamed answer.');
  const first = viewMessagesRequest(mock.messageRequests()[0]?.body, 0);
  assert.equal(
    first.lastUserText,
    'plain answer please',
    'the first request carries the prompt after a system-reminder',
  );
});

test('the demo plan drives TodoWrite through several calls and PostToolUse fires for each', async () => {
  const started = performance.now();
  const result = await runTurn('make a plan');
  const tookMs = performance.now() - started;
  assert.equal(result.subtype, 'success');
  // Paced to be watched: about 0.7 s of streaming a step (it finished in 1.1 s, too fast to follow).
  assert.ok(tookMs >= 3000, `the plan took ${Math.round(tookMs)} ms`);
  const todoHooks = postToolUses.filter(
    (hook) => hook.hook_event_name === 'PostToolUse' && hook.tool_name === 'TodoWrite',
  );
  assert.equal(todoHooks.length, 4, 'one PostToolUse per TodoWrite step of the demo plan');
  assert.match(result.subtype === 'success' ? result.result : '', /All three steps are done/);
  assert.deepEqual(permissionRequests, [], 'TodoWrite needs no permission');
});

test('a permission-gated Bash call asks canUseTool and its tool_result reaches the next request', async () => {
  const result = await runTurn('run a command');
  assert.equal(result.subtype, 'success');
  assert.deepEqual(permissionRequests, ['Bash']);
  const requests = mock.messageRequests();
  const last = requests.at(-1);
  const view = viewMessagesRequest(last?.body, requests.length - 1);
  const bash = view.toolResults.find((toolResult) => toolResult.toolName === 'Bash');
  assert.ok(bash, 'the request after the tool call carries the Bash tool_result');
  assert.equal(bash.isError, false);
  assert.match(bash.content, /Hello from the Outrigger demo model/);
});

test('the demo question reaches canUseTool and its answer steers the reply', async () => {
  permissionRequests.length = 0;
  const result = await runTurn('ask me a question');
  assert.equal(result.subtype, 'success');
  assert.deepEqual(permissionRequests, ['AskUserQuestion']);
  assert.match(result.subtype === 'success' ? result.result : '', /SQLite it is/);
});

test('the demo edit writes a new file, then edits it: Claude Code applies both, again in a new session', async () => {
  const notes = join(home.cwd, 'outrigger-demo', 'notes.md');
  await rm(notes, { force: true });
  permissionRequests.length = 0;
  const result = await runTurn('edit a file and show me the diff');
  assert.equal(result.subtype, 'success');
  assert.deepEqual(permissionRequests, ['Write', 'Edit'], 'both file changes ask permission');
  assert.match(result.subtype === 'success' ? result.result : '', /wrote `outrigger-demo\/notes.md` and edited it/);
  const edited = await readFile(notes, 'utf8');
  assert.match(edited, /^# Demo notes\n/, 'the Write made the file');
  assert.match(edited, /Status: reviewed\n\nThe demo model edited this line/, 'the Edit changed it');
  assert.doesNotMatch(edited, /Status: draft/);

  // A new session finds the file there, changed since: Claude Code overwrites a file it never read (2.1.332).
  await writeFile(notes, 'changed by hand\n');
  const before = mock.messageRequests().length;
  const fresh = query({
    prompt: 'edit it again',
    options: { cwd: home.cwd, env: home.env, permissionMode: 'default', canUseTool: allowEverything },
  });
  let again: SDKResultMessage | undefined;
  for await (const message of fresh) if (message.type === 'result') again = message;
  assert.equal(again?.subtype, 'success');
  const results = mock
    .messageRequests()
    .slice(before)
    .flatMap((request, index) => viewMessagesRequest(request.body, index).toolResults);
  assert.deepEqual(
    results.map((toolResult) => toolResult.toolName),
    ['Write', 'Edit'],
  );
  assert.ok(results.every((toolResult) => !toolResult.isError));
  assert.match(await readFile(notes, 'utf8'), /Status: reviewed/);
});

test('the demo background job answers its tool_result and later its task notification', async () => {
  permissionRequests.length = 0;
  const started = await runTurn('start a background job');
  assert.equal(started.subtype, 'success');
  assert.deepEqual(permissionRequests, ['Bash']);
  assert.match(started.subtype === 'success' ? started.result : '', /running in the background/);
  const followUp = await nextResult();
  assert.equal(followUp.subtype, 'success');
  assert.match(followUp.subtype === 'success' ? followUp.result : '', /background job finished/);
});

test('Claude Code retries a 529 overloaded answer and then succeeds', async () => {
  const earlier = mock.messageRequests().length;
  const result = await runTurn('overloaded then fine');
  assert.equal(result.subtype, 'success');
  assert.equal(result.subtype === 'success' ? result.result : undefined, 'Recovered after the overload.');
  const turnRequests = mock
    .messageRequests()
    .slice(earlier)
    .filter((request) => viewMessagesRequest(request.body, 0).lastUserText.includes('overloaded then fine'));
  assert.equal(turnRequests.length, 2, 'the overloaded request and its retry');
});

test('interrupting a slow stream ends the turn with error_during_execution', async () => {
  const seen = mock.messageRequests().length;
  input.push('please be slow');
  await mock.waitForMessageRequests(seen + 1, turnTimeoutMs);
  await delay(300); // let a few chunks of the slow stream arrive before interrupting
  await session.interrupt();
  const result = await nextResult();
  assert.equal(result.subtype, 'error_during_execution');
  assert.deepEqual(mock.unmatched, [], 'every request of this file had a scripted answer');
});

async function runTurn(prompt: string): Promise<SDKResultMessage> {
  input.push(prompt);
  return nextResult();
}

async function nextResult(): Promise<SDKResultMessage> {
  const deadline = AbortSignal.timeout(turnTimeoutMs);
  for (;;) {
    const next = await Promise.race([
      messages.next(),
      new Promise<never>((_, reject) =>
        deadline.addEventListener('abort', () => reject(new Error(`no result within ${turnTimeoutMs} ms`)), {
          once: true,
        }),
      ),
    ]);
    if (next.done) throw new Error('Claude Code ended before the turn produced a result');
    if (next.value.type === 'result') return next.value;
  }
}

/** The streaming input of a Query: prompts pushed one turn at a time. */
class UserMessageQueue implements AsyncIterable<SDKUserMessage> {
  readonly #pending: SDKUserMessage[] = [];
  #wake: (() => void) | undefined;

  push(text: string): void {
    this.#pending.push({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null });
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SDKUserMessage> {
    for (;;) {
      const message = this.#pending.shift();
      if (message !== undefined) {
        yield message;
      } else {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
      }
    }
  }
}

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  type CanUseTool,
  type Query,
  query,
  type SDKMessage,
  type SDKResultMessage,
  type SDKUserMessage,
} from '@anthropic-ai/claude-agent-sdk';
import {
  type MessagesRequestView,
  type MockAnthropic,
  startMockAnthropic,
  viewMessagesRequest,
} from '@outrigger/mock-anthropic';
import { type ClaudeTestHome, createClaudeTestHome } from '@outrigger/mock-anthropic/testing';
import type { EmitEvent } from '@outrigger/protocol';
import { createCanUseTool } from './canUseTool.ts';
import { InteractiveRegistry } from './interactiveRegistry.ts';
import { SessionPermissionLedger } from './sessionPermissionLedger.ts';
import { within } from './testSupport.ts';

// Real Claude Code against mock-anthropic, driven through createCanUseTool. Two Query generations of one
// session run one after the other (never two processes at once); the second resumes the first.
const waitMs = 30_000;
const question = 'Which database should we use?';
const denial = 'Not in this repository, please.';

/** The scripted model: each prompt asks for one tool, and the follow-up after its tool_result ends the turn. */
function scriptedModel(request: MessagesRequestView) {
  if (request.toolResults.length > 0) return { content: [{ type: 'text' as const, text: 'Done.' }] };
  const bash = (command: string) => ({
    content: [{ type: 'tool_use' as const, name: 'Bash', input: { command, description: 'Touch a file' } }],
    stopReason: 'tool_use' as const,
  });
  switch (request.lastUserText) {
    case 'approve once':
      return bash('touch approved-once.txt');
    case 'approve for session':
    case 'approve for session again':
      return bash('touch approved-for-session.txt');
    case 'reject with a message':
      return bash('touch rejected.txt');
    case 'ask a question':
      return {
        content: [
          {
            type: 'tool_use' as const,
            name: 'AskUserQuestion',
            input: {
              questions: [
                {
                  question,
                  header: 'Database',
                  options: [
                    { label: 'SQLite', description: 'A file' },
                    { label: 'Postgres', description: 'A server' },
                  ],
                  multiSelect: false,
                },
              ],
            },
          },
        ],
        stopReason: 'tool_use' as const,
      };
    default:
      return undefined;
  }
}

interface Emitted {
  readonly type: string;
  readonly payload: Record<string, unknown>;
}

/** One Query generation: the streaming input, a background consumer and the fence of its callback. */
class Generation {
  readonly query: Query;
  readonly canUseToolCalls: string[] = [];
  active = true;
  readonly #pending: SDKUserMessage[] = [];
  #wake: (() => void) | undefined;
  readonly #results: SDKResultMessage[] = [];
  #resultWaiter: (() => void) | undefined;
  readonly consumed: Promise<void>;

  constructor(home: ClaudeTestHome, canUseTool: CanUseTool, resume?: string) {
    const recordingCanUseTool: CanUseTool = (toolName, input, options) => {
      this.canUseToolCalls.push(toolName);
      return canUseTool(toolName, input, options);
    };
    this.query = query({
      prompt: this.#input(),
      options: {
        cwd: home.cwd,
        env: home.env,
        permissionMode: 'default',
        canUseTool: recordingCanUseTool,
        ...(resume ? { resume } : {}),
      },
    });
    this.consumed = this.#consume();
  }

  async turn(prompt: string): Promise<SDKResultMessage> {
    this.#pending.push({ type: 'user', message: { role: 'user', content: prompt }, parent_tool_use_id: null });
    this.#wake?.();
    return within(this.#nextResult(), `the result of "${prompt}"`, waitMs);
  }

  async close(): Promise<void> {
    this.active = false;
    this.query.close();
    await within(this.consumed, 'the Query to end', waitMs);
  }

  async *#input(): AsyncGenerator<SDKUserMessage> {
    for (;;) {
      const message = this.#pending.shift();
      if (message) {
        yield message;
      } else {
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
      }
    }
  }

  async #consume(): Promise<void> {
    for await (const message of this.query as AsyncIterable<SDKMessage>) {
      if (message.type === 'result') {
        this.#results.push(message);
        this.#resultWaiter?.();
      }
    }
  }

  async #nextResult(): Promise<SDKResultMessage> {
    for (;;) {
      const result = this.#results.shift();
      if (result) return result;
      await new Promise<void>((resolve) => {
        this.#resultWaiter = resolve;
      });
    }
  }
}

describe('createCanUseTool with the real Claude Code', () => {
  let mock: MockAnthropic;
  let home: ClaudeTestHome;
  let generation: Generation | undefined;
  const events: Emitted[] = [];
  const registry = new InteractiveRegistry();
  const ledger = new SessionPermissionLedger();
  let currentTurn = 'turn-0';
  let onRequest: ((event: Emitted) => void) | undefined;

  const emit = ((type: string, payload: Record<string, unknown>) => {
    const event = { type, payload };
    events.push(event);
    if (type.endsWith('_requested')) onRequest?.(event);
  }) as EmitEvent;

  const callbackFor = (owner: () => Generation | undefined): CanUseTool =>
    createCanUseTool({
      registry,
      ledger,
      emit,
      resolveTurnId: () => currentTurn,
      awaitTurnIdentity: async () => {},
      getPermissionMode: () => 'default',
      canBypassPermissions: false,
      isGenerationActive: () => owner()?.active === true,
    });

  /** Runs one turn, answering the interaction it raises with `answerWith`. */
  async function turn(
    turnId: string,
    prompt: string,
    answerWith?: (request: Emitted) => { action: string; optionId: string; payload?: Record<string, unknown> },
  ) {
    currentTurn = turnId;
    const raised: Emitted[] = [];
    onRequest = (request) => {
      raised.push(request);
      if (!answerWith) return;
      const { action, optionId, payload = {} } = answerWith(request);
      const outcome = registry.submit(turnId, request.payload.requestId as string, action, optionId, payload);
      assert.deepEqual(outcome, { disposition: 'answered', replayed: false });
    };
    const result = await generation!.turn(prompt);
    onRequest = undefined;
    const requests = mock.messageRequests();
    const last = viewMessagesRequest(requests.at(-1)?.body, requests.length - 1);
    return { result, raised, followUp: last };
  }

  before(async () => {
    mock = await startMockAnthropic({ rules: [scriptedModel] });
    home = await createClaudeTestHome({ baseUrl: mock.url });
    process.env.CLAUDE_CONFIG_DIR = home.configDir;
    const first: Generation = new Generation(
      home,
      callbackFor(() => first),
    );
    generation = first;
  });

  after(async () => {
    await generation?.close().catch(() => {});
    await mock?.close();
    await home?.cleanup();
  });

  it('allows once: the command runs and its tool_result reaches the next request', async () => {
    const { result, raised, followUp } = await turn('turn-1', 'approve once', () => ({
      action: 'allow',
      optionId: 'allow',
    }));
    assert.equal(result.subtype, 'success');
    assert.deepEqual(
      raised.map((event) => [event.type, event.payload.turnId, event.payload.toolName]),
      [['approval_requested', 'turn-1', 'Bash']],
    );
    const bash = followUp.toolResults.find((toolResult) => toolResult.toolName === 'Bash');
    assert.ok(bash, 'the follow-up request carries the Bash tool_result');
    assert.equal(bash.isError, false);
    assert.ok(existsSync(join(home.cwd, 'approved-once.txt')), 'the approved command ran');
    const resolved = events.find((event) => event.type === 'approval_resolved');
    assert.equal(resolved?.payload.optionId, 'allow');
  });

  it('rejects with a message: the model receives it as an is_error tool_result', async () => {
    const { result, raised, followUp } = await turn('turn-2', 'reject with a message', () => ({
      action: 'reject',
      optionId: 'reject',
      payload: { denyMessage: denial },
    }));
    assert.equal(result.subtype, 'success');
    assert.equal(raised.length, 1);
    const bash = followUp.toolResults.find((toolResult) => toolResult.toolName === 'Bash');
    assert.ok(bash, 'the follow-up request carries the Bash tool_result');
    assert.equal(bash.isError, true);
    assert.match(bash.content, new RegExp(denial.replace('.', '\\.')));
    assert.equal(existsSync(join(home.cwd, 'rejected.txt')), false, 'the rejected command did not run');
  });

  it('answers AskUserQuestion by question id: the answer reaches the model', async () => {
    const { result, raised, followUp } = await turn('turn-3', 'ask a question', (request) => {
      const [asked] = (request.payload.input as { questions: { id: string }[] }).questions;
      return { action: 'submit', optionId: '', payload: { answersByQuestionId: { [asked.id]: 'SQLite' } } };
    });
    assert.equal(result.subtype, 'success');
    assert.deepEqual(
      raised.map((event) => event.type),
      ['user_input_requested'],
    );
    const answer = followUp.toolResults.find((toolResult) => toolResult.toolName === 'AskUserQuestion');
    assert.ok(answer, 'the follow-up request carries the AskUserQuestion tool_result');
    assert.equal(answer.isError, false);
    assert.ok(answer.content.includes(`"${question}"="SQLite"`), `tool_result was: ${answer.content}`);
  });

  it('remembers "Allow for session" into a new Query generation that resumes the session', async () => {
    const granted = await turn('turn-4', 'approve for session', () => ({ action: 'allow', optionId: 'allow_always' }));
    assert.equal(granted.result.subtype, 'success');
    assert.equal(granted.raised.length, 1);
    assert.ok(ledger.size > 0, 'the session grant was remembered');
    assert.equal(
      existsSync(join(home.cwd, '.claude', 'settings.local.json')),
      false,
      'a session grant never writes the project settings',
    );
    const sessionId = granted.result.session_id;

    await generation!.close();
    const second: Generation = new Generation(
      home,
      callbackFor(() => second),
      sessionId,
    );
    generation = second;

    const replayed = await turn('turn-5', 'approve for session again');
    assert.equal(replayed.result.subtype, 'success');
    assert.deepEqual(second.canUseToolCalls, ['Bash'], 'the new Claude Code process asked again');
    assert.deepEqual(replayed.raised, [], 'the ledger answered without publishing a request');
    const bash = replayed.followUp.toolResults.find((toolResult) => toolResult.toolName === 'Bash');
    assert.equal(bash?.isError, false);
    assert.deepEqual(mock.unmatched, []);
  });
});

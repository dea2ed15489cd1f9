import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type HookCallbackMatcher, type HookInput, query } from '@anthropic-ai/claude-agent-sdk';
import { type MockAnthropic, startMockAnthropic } from '@outrigger/mock-anthropic';
import { type ClaudeTestHome, createClaudeTestHome } from '@outrigger/mock-anthropic/testing';
import { parseRequestPayload, type SidecarEventType } from '@outrigger/protocol';
import { SessionRuntime } from '../src/runtime/sessionRuntime.ts';

/*
 * The hooks every Query generation registers (reference §3.1: SessionStart, PostToolUse, TaskCreated,
 * TaskCompleted), called by the real Claude Code binary through the real SDK: the session runtime runs in
 * process with the SDK's own `query()`, wrapped only to record what each hook callback answered.
 * Claude Code 2.1.332 calls an SDK SessionStart hook when the session restarts in place (`/compact`,
 * `/clear`), not at process startup or resume: `system/init` names the transcript then.
 */

const TASK_CREATE = 'toolu_hooks_create';
const TASK_UPDATE = 'toolu_hooks_update';

let mock: MockAnthropic;
let home: ClaudeTestHome;

before(async () => {
  mock = await startMockAnthropic({
    rules: [
      (request) => {
        // Claude Code's summary request for `/compact`.
        if (request.lastUserText.includes('create a detailed summary of the conversation')) {
          return { content: [{ type: 'text', text: '<summary>A task was tracked.</summary>' }] };
        }
        if (!request.lastUserText.includes('Track the work')) return undefined;
        if (request.toolResults.some((result) => result.toolUseId === TASK_UPDATE)) {
          return { content: [{ type: 'text', text: 'Tracked and done.' }] };
        }
        if (request.toolResults.some((result) => result.toolUseId === TASK_CREATE)) {
          return {
            content: [
              { type: 'tool_use', id: TASK_UPDATE, name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } },
            ],
          };
        }
        return {
          content: [
            {
              type: 'tool_use',
              id: TASK_CREATE,
              name: 'TaskCreate',
              input: { subject: 'Write tests', description: 'Cover the hooks', activeForm: 'Writing tests' },
            },
          ],
        };
      },
    ],
  });
  home = await createClaudeTestHome({
    baseUrl: mock.url,
    env: { IS_SANDBOX: '1', CLAUDE_CODE_ENABLE_TODO_TOOLS: '1' },
  });
});

after(async () => {
  await mock?.close();
  await home?.cleanup();
});

interface HookCall {
  readonly event: string;
  readonly answer: unknown;
  readonly transcriptPath: string;
}

/** The generation's hooks, each callback wrapped to record what it answered Claude Code. */
function recording(hooks: Partial<Record<string, HookCallbackMatcher[]>> | undefined, calls: HookCall[]) {
  const wrapped: Record<string, HookCallbackMatcher[]> = {};
  for (const [event, matchers] of Object.entries(hooks ?? {})) {
    wrapped[event] = (matchers ?? []).map((matcher) => ({
      ...matcher,
      hooks: matcher.hooks.map((hook) => async (input: HookInput, toolUseId, options) => {
        const answer = await hook(input, toolUseId, options);
        calls.push({ event: input.hook_event_name, answer, transcriptPath: input.transcript_path });
        return answer;
      }),
    }));
  }
  return wrapped;
}

test('Claude Code calls the TaskCreated, TaskCompleted and SessionStart hooks of the live generation', async () => {
  const calls: HookCall[] = [];
  const events: { type: SidecarEventType; payload: Record<string, unknown> }[] = [];
  const start = parseRequestPayload('start', {
    agentSessionId: 'hooks',
    cwd: home.cwd,
    permissionModeId: 'bypassPermissions',
  });
  assert.ok(start.ok);
  const runtime = new SessionRuntime({
    payload: start.value,
    processEnv: home.env,
    emit: (type, payload) => events.push({ type, payload: payload as Record<string, unknown> }),
    queryFactory: (params) =>
      query({ ...params, options: { ...params.options, hooks: recording(params.options.hooks, calls) } }),
  });
  try {
    const { providerSessionId } = await runtime.start();
    const runTurn = async (turnId: string, prompt: string) => {
      const exec = parseRequestPayload('exec', { agentSessionId: 'hooks', turnId, prompt });
      assert.ok(exec.ok);
      await runtime.exec(exec.value);
      const isTerminal = (event: (typeof events)[number]) =>
        event.payload.turnId === turnId && ['turn_completed', 'turn_failed', 'turn_canceled'].includes(event.type);
      const deadline = Date.now() + 60_000;
      while (!events.some(isTerminal)) {
        assert.ok(Date.now() < deadline, `${prompt} ended in time; saw ${events.map((event) => event.type)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(events.find(isTerminal)?.type, 'turn_completed', `${prompt} completed`);
    };
    await runTurn('hooks-tasks', 'Track the work');
    await runTurn('hooks-compact', '/compact');

    const byEvent = (name: string) => calls.filter((call) => call.event === name);
    assert.ok(byEvent('SessionStart').length >= 1, `SessionStart was called; calls: ${calls.map((c) => c.event)}`);
    assert.ok(
      byEvent('SessionStart').every((call) => call.transcriptPath.endsWith(`${providerSessionId}.jsonl`)),
      'SessionStart names the session transcript',
    );
    assert.equal(byEvent('TaskCreated').length, 1, 'TaskCreated was called for the TaskCreate tool');
    assert.equal(byEvent('TaskCompleted').length, 1, 'TaskCompleted was called when the task was completed');
    assert.ok(byEvent('PostToolUse').length >= 2, 'PostToolUse was called for both task tools');
    assert.ok(
      calls.every((call) => JSON.stringify(call.answer) === '{}'),
      'a live generation lets Claude Code go on',
    );
    assert.deepEqual(mock.unmatched, []);
  } finally {
    await runtime.close();
  }
});

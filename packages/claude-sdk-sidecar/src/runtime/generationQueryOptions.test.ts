import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HookInput, PostToolUseHookInput } from '@anthropic-ai/claude-agent-sdk';
import type { ResolvedStartOptions } from '../config/startOptions.ts';
import { type GenerationQueryOptionsInput, generationHooks, generationQueryOptions } from './generationQueryOptions.ts';

const START: ResolvedStartOptions = {
  queryOptions: {
    systemPrompt: { type: 'preset', preset: 'claude_code' },
    extraArgs: { 'plugin-dir': '/plugins' },
    settings: { plansDirectory: '/plans', effortLevel: 'low' },
  },
  permissionMode: 'default',
  basePermissionMode: 'default',
  planMode: false,
  canBypassPermissions: true,
};

function input(fields: Partial<GenerationQueryOptionsInput> = {}): GenerationQueryOptionsInput {
  return {
    startOptions: START,
    settings: { permissionMode: 'acceptEdits', flagSettings: {} },
    cwd: '/project',
    env: { CLAUDE_CONFIG_DIR: '/config' },
    executable: undefined,
    providerSessionId: 'provider-1',
    resumable: false,
    canUseTool: async () => ({ behavior: 'deny', message: 'no' }),
    hooks: {},
    ...fields,
  };
}

test('every generation echoes prompts and streams partial messages and hook events, on top of the start options', () => {
  const options = generationQueryOptions(input());
  assert.deepEqual(options.extraArgs, { 'plugin-dir': '/plugins', 'replay-user-messages': null });
  assert.equal(options.includePartialMessages, true);
  assert.equal(options.includeHookEvents, true);
  assert.deepEqual(options.systemPrompt, START.queryOptions.systemPrompt);
  assert.equal(options.permissionMode, 'acceptEdits');
  assert.equal(options.allowDangerouslySkipPermissions, true);
  assert.equal(options.sessionId, 'provider-1', 'a session without a transcript is created with its id');
  assert.equal(options.resume, undefined);
  assert.equal(options.model, undefined, 'the default model is left to Claude Code');
  assert.equal('pathToClaudeCodeExecutable' in options, false);
});

test('a resumable session resumes; flags applied since start override the start settings', () => {
  const options = generationQueryOptions(
    input({
      resumable: true,
      executable: '/bin/claude',
      settings: { permissionMode: 'plan', model: 'claude-sonnet-test', flagSettings: { effortLevel: 'high' } },
    }),
  );
  assert.equal(options.resume, 'provider-1');
  assert.equal(options.sessionId, undefined);
  assert.equal(options.model, 'claude-sonnet-test');
  assert.equal(options.pathToClaudeCodeExecutable, '/bin/claude');
  assert.deepEqual(options.settings, { plansDirectory: '/plans', effortLevel: 'high' });
});

test('the generation hooks are registered, feed the session while live and stop Claude Code once revoked', async () => {
  let live = true;
  const posted: (string | undefined)[] = [];
  const transcripts: string[] = [];
  const hooks = generationHooks(() => live, {
    postToolUse: (_input, toolUseId) => posted.push(toolUseId),
    sessionStart: (sessionStart) => transcripts.push(sessionStart.transcript_path),
  });
  assert.deepEqual(Object.keys(hooks).sort(), ['PostToolUse', 'SessionStart', 'TaskCompleted', 'TaskCreated']);
  assert.equal(generationQueryOptions(input({ hooks })).hooks, hooks);
  const call = (event: keyof typeof hooks, hookInput: Record<string, unknown>, toolUseId?: string) => {
    const hook = hooks[event]?.[0]?.hooks[0];
    assert.ok(hook, `${event} is registered`);
    return hook({ hook_event_name: event, ...hookInput } as HookInput, toolUseId, {
      signal: new AbortController().signal,
    });
  };
  const post = { tool_name: 'TodoWrite' } as Partial<PostToolUseHookInput>;
  assert.deepEqual(await call('PostToolUse', post, 'toolu_1'), {});
  assert.deepEqual(await call('SessionStart', { transcript_path: '/t/root.jsonl', source: 'startup' }), {});
  assert.deepEqual(await call('SessionStart', { transcript_path: '/t/agent.jsonl', agent_id: 'a1' }), {});
  assert.deepEqual(await call('TaskCreated', { task_id: '1', task_subject: 'x' }), {});
  assert.deepEqual(await call('TaskCompleted', { task_id: '1', task_subject: 'x' }), {});
  live = false;
  for (const event of ['PostToolUse', 'SessionStart', 'TaskCreated', 'TaskCompleted'] as const) {
    assert.deepEqual(await call(event, { transcript_path: '/t/late.jsonl' }, 'toolu_2'), { continue: false }, event);
  }
  assert.deepEqual(posted, ['toolu_1'], 'only the live PostToolUse reached the projector');
  assert.deepEqual(transcripts, ['/t/root.jsonl'], "only the live root agent's session start names the transcript");
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HookInput, PostToolUseHookInput } from '@anthropic-ai/claude-agent-sdk';
import type { ResolvedStartOptions } from '../config/startOptions.ts';
import { type GenerationQueryOptionsInput, generationQueryOptions, postToolUseHook } from './generationQueryOptions.ts';

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
    postToolUse: { hooks: [] },
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

test('the PostToolUse hook feeds the projector only while its generation is live', async () => {
  let live = true;
  const seen: (string | undefined)[] = [];
  const [hook] = postToolUseHook(
    () => live,
    (_input, toolUseId) => seen.push(toolUseId),
  ).hooks;
  assert.ok(hook);
  const post = { hook_event_name: 'PostToolUse', tool_name: 'TodoWrite' } as PostToolUseHookInput;
  const signal = new AbortController().signal;
  assert.deepEqual(await hook(post, 'toolu_1', { signal }), {});
  assert.deepEqual(await hook({ hook_event_name: 'Stop' } as HookInput, 'toolu_2', { signal }), {});
  live = false;
  assert.deepEqual(await hook(post, 'toolu_3', { signal }), { continue: false }, 'a revoked generation stops');
  assert.deepEqual(seen, ['toolu_1']);
});

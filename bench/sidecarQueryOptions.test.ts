import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { HookCallback, Options, PostToolUseHookInput } from '@anthropic-ai/claude-agent-sdk';
import { SessionRuntime } from '@outrigger/claude-sdk-sidecar';
import { fakeQueryFactory } from '@outrigger/claude-sdk-sidecar/testing';
import { startPayloadSchema } from '@outrigger/protocol';
import { sidecarFirstQueryOptions } from './sidecarQueryOptions.ts';

const root = await mkdtemp(join(tmpdir(), 'bench-query-options-'));
after(() => rm(root, { recursive: true, force: true }));

/** A home whose user and project settings both add env, so the env layering is part of the comparison. */
async function sessionHome(): Promise<{ processEnv: Record<string, string>; cwd: string }> {
  const configDir = join(root, 'config');
  const cwd = join(root, 'project');
  await mkdir(configDir, { recursive: true });
  await mkdir(join(cwd, '.claude'), { recursive: true });
  await writeFile(join(configDir, 'settings.json'), JSON.stringify({ env: { FROM_USER_SETTINGS: 'user' } }));
  await writeFile(join(cwd, '.claude', 'settings.json'), JSON.stringify({ env: { FROM_PROJECT_SETTINGS: 'p' } }));
  return { processEnv: { CLAUDE_CONFIG_DIR: configDir, PATH: '/usr/bin', ANTHROPIC_BASE_URL: 'http://mock' }, cwd };
}

interface StartedRuntime {
  /** The options the runtime handed its query factory when the session started. */
  options: Options;
  close(): Promise<void>;
}

async function startRuntime(start: {
  processEnv: Record<string, string>;
  cwd: string;
  providerSessionId: string;
}): Promise<StartedRuntime> {
  const { factory, queries } = fakeQueryFactory();
  const runtime = new SessionRuntime({
    payload: startPayloadSchema.parse({
      agentSessionId: 'a',
      cwd: start.cwd,
      providerSessionId: start.providerSessionId,
    }),
    emit: () => undefined,
    processEnv: start.processEnv,
    queryFactory: factory,
  });
  try {
    await runtime.start();
    const [query] = queries;
    assert.ok(query, 'the runtime created no Query at start');
    return { options: query.options, close: () => runtime.close() };
  } catch (error) {
    await runtime.close();
    throw error;
  }
}

function withoutCallbacks({ canUseTool: _canUseTool, hooks: _hooks, ...options }: Options): Options {
  return options;
}

function postToolUseHookOf(options: Options): HookCallback {
  const matchers = options.hooks?.PostToolUse;
  assert.deepEqual(
    Object.keys(options.hooks ?? {}).sort(),
    ['PostToolUse', 'SessionStart', 'TaskCompleted', 'TaskCreated'],
    'the hook events every generation registers',
  );
  assert.equal(matchers?.length, 1, 'one PostToolUse matcher');
  const [matcher] = matchers ?? [];
  assert.equal(matcher?.matcher, undefined, 'the matcher applies to every tool');
  assert.equal(matcher?.hooks.length, 1, 'one PostToolUse callback');
  return matcher.hooks[0] as HookCallback;
}

test('the raw loop gets the options and env the runtime creates its first Query with', async () => {
  const home = await sessionHome();
  const providerSessionId = randomUUID();
  const bench = await sidecarFirstQueryOptions({ ...home, agentSessionId: 'bench', providerSessionId });
  const runtime = await startRuntime({ ...home, providerSessionId });
  await runtime.close();

  assert.deepEqual(withoutCallbacks(bench), withoutCallbacks(runtime.options));
  assert.equal(bench.env?.CLAUDE_CODE_EMIT_SESSION_STATE_EVENTS, '1', 'the forced env reaches the raw loop');
  assert.equal(bench.env?.FROM_PROJECT_SETTINGS, 'p', 'settings env layers reach the raw loop');
});

test('the stand-in callbacks are registered and answer Claude Code as a live session does outside a turn', async () => {
  const home = await sessionHome();
  const providerSessionId = randomUUID();
  const bench = await sidecarFirstQueryOptions({ ...home, agentSessionId: 'bench', providerSessionId });
  const runtime = await startRuntime({ ...home, providerSessionId });
  const input: PostToolUseHookInput = {
    hook_event_name: 'PostToolUse',
    session_id: providerSessionId,
    transcript_path: join(home.cwd, 'transcript.jsonl'),
    cwd: home.cwd,
    tool_name: 'Bash',
    tool_input: { command: 'true' },
    tool_response: { stdout: '' },
    tool_use_id: 'toolu_1',
  };
  const signal = new AbortController().signal;
  try {
    const sessionAnswer = await postToolUseHookOf(runtime.options)(input, 'toolu_1', { signal });
    assert.deepEqual(await postToolUseHookOf(bench)(input, 'toolu_1', { signal }), sessionAnswer);
  } finally {
    await runtime.close();
  }
  assert.equal(typeof runtime.options.canUseTool, 'function');
  const decision = await bench.canUseTool?.(
    'Bash',
    { command: 'true' },
    { signal, toolUseID: 'toolu_1', requestId: 'request-1' },
  );
  assert.deepEqual(decision, { behavior: 'allow', updatedInput: { command: 'true' } });
});

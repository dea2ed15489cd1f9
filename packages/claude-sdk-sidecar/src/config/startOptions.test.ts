import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseRequestPayload, type StartPayload } from '@outrigger/protocol';
import { resolveStartOptions } from './startOptions.ts';

let root: string;
let promptFile: string;
let pluginDir: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'outrigger-start-options-'));
  promptFile = join(root, 'prompt.md');
  pluginDir = join(root, 'plugin');
  await writeFile(promptFile, '\n  Follow the house rules.  \n');
  await mkdir(pluginDir);
});

after(() => rm(root, { recursive: true, force: true }));

function start(fields: Record<string, unknown>): StartPayload {
  const parsed = parseRequestPayload('start', { agentSessionId: 's1', ...fields });
  if (!parsed.ok) assert.fail(parsed.error);
  return parsed.value as StartPayload;
}

const user = { processEnv: {}, euid: 1000 };

describe('resolveStartOptions', () => {
  test('a bare start runs the claude_code preset in default mode with no other options', async () => {
    assert.deepEqual(await resolveStartOptions(start({}), user), {
      queryOptions: { systemPrompt: { type: 'preset', preset: 'claude_code' } },
      permissionMode: 'default',
      basePermissionMode: 'default',
      planMode: false,
      canBypassPermissions: true,
    });
  });

  test('host options pass through; effort and speed become create-time settings with the plans directory', async () => {
    const resolved = await resolveStartOptions(
      start({
        env: { TUTTI_CLAUDE_PLANS_DIRECTORY: ' .plans ' },
        systemPromptAppend: 'Be brief.',
        planModeInstructions: 'Plan in three steps.',
        allowedTools: ['Grep', 'Glob'],
        disallowedTools: ['Monitor'],
        tools: { type: 'preset', preset: 'claude_code' },
        extraArgs: { model: 'custom-model' },
        effort: 'high',
        settings: { effort: 'low', speed: 'fast' },
      }),
      user,
    );
    assert.deepEqual(resolved.queryOptions, {
      systemPrompt: { type: 'preset', preset: 'claude_code', append: 'Be brief.' },
      extraArgs: { model: 'custom-model' },
      settings: { plansDirectory: '.plans', fastMode: true, effortLevel: 'high' },
      tools: { type: 'preset', preset: 'claude_code' },
      allowedTools: ['Grep', 'Glob'],
      disallowedTools: ['Monitor'],
      planModeInstructions: 'Plan in three steps.',
    });
  });

  test('the plans directory is read from the payload env only', async () => {
    const resolved = await resolveStartOptions(start({}), {
      processEnv: { TUTTI_CLAUDE_PLANS_DIRECTORY: '/p' },
      euid: 1000,
    });
    assert.equal(resolved.queryOptions.settings, undefined);
  });

  test('the system prompt file fills append (trimmed) unless systemPromptAppend is given', async () => {
    const env = { TUTTI_CLAUDE_SYSTEM_PROMPT_FILE: promptFile };
    assert.deepEqual((await resolveStartOptions(start({ env }), user)).queryOptions.systemPrompt, {
      type: 'preset',
      preset: 'claude_code',
      append: 'Follow the house rules.',
    });
    assert.deepEqual(
      (await resolveStartOptions(start({ env, systemPromptAppend: 'explicit' }), user)).queryOptions.systemPrompt,
      { type: 'preset', preset: 'claude_code', append: 'explicit' },
    );
    await assert.rejects(
      resolveStartOptions(start({ env: { TUTTI_CLAUDE_SYSTEM_PROMPT_FILE: join(root, 'missing.md') } }), user),
      { message: 'cannot read TUTTI_CLAUDE_SYSTEM_PROMPT_FILE: ENOENT' },
    );
  });

  test('the plugin dir becomes a local plugin and a plugin-dir flag unless plugins are explicit', async () => {
    const env = { TUTTI_CLAUDE_PLUGIN_DIR: pluginDir };
    const fromEnv = await resolveStartOptions(start({ env, extraArgs: { verbose: null } }), user);
    assert.deepEqual(fromEnv.queryOptions.plugins, [{ type: 'local', path: pluginDir }]);
    assert.deepEqual(fromEnv.queryOptions.extraArgs, { verbose: null, 'plugin-dir': pluginDir });
    const explicit = await resolveStartOptions(start({ env, plugins: [{ type: 'local', path: '/explicit' }] }), user);
    assert.deepEqual(explicit.queryOptions.plugins, [{ type: 'local', path: '/explicit' }]);
    assert.equal(explicit.queryOptions.extraArgs, undefined);
    await assert.rejects(resolveStartOptions(start({ env: { TUTTI_CLAUDE_PLUGIN_DIR: promptFile } }), user), {
      message: 'TUTTI_CLAUDE_PLUGIN_DIR must be a directory',
    });
  });

  test('permission modes: dontAsk runs as default, plan is plan mode over a default base', async () => {
    const mode = async (fields: Record<string, unknown>) => {
      const { permissionMode, basePermissionMode, planMode } = await resolveStartOptions(start(fields), user);
      return { permissionMode, basePermissionMode, planMode };
    };
    assert.deepEqual(await mode({ permissionModeId: 'dontAsk' }), {
      permissionMode: 'default',
      basePermissionMode: 'default',
      planMode: false,
    });
    assert.deepEqual(await mode({ permissionModeId: 'plan' }), {
      permissionMode: 'plan',
      basePermissionMode: 'default',
      planMode: true,
    });
    assert.deepEqual(await mode({ settings: { permissionModeId: 'acceptEdits', planMode: true } }), {
      permissionMode: 'plan',
      basePermissionMode: 'acceptEdits',
      planMode: true,
    });
    assert.deepEqual(await mode({ permissionModeId: 'auto', settings: { permissionModeId: 'acceptEdits' } }), {
      permissionMode: 'auto',
      basePermissionMode: 'auto',
      planMode: false,
    });
  });

  test('bypass is downgraded to default for root without IS_SANDBOX=1', async () => {
    const payload = start({ permissionModeId: 'bypassPermissions' });
    const root = await resolveStartOptions(payload, { processEnv: {}, euid: 0 });
    assert.deepEqual([root.permissionMode, root.canBypassPermissions], ['default', false]);
    const sandboxed = await resolveStartOptions(payload, { processEnv: { IS_SANDBOX: '1' }, euid: 0 });
    assert.deepEqual([sandboxed.permissionMode, sandboxed.canBypassPermissions], ['bypassPermissions', true]);
  });
});

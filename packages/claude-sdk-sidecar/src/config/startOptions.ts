import { readFile, stat } from 'node:fs/promises';
import type { Options, PermissionMode, SdkPluginConfig } from '@anthropic-ai/claude-agent-sdk';
import type { StartPayload } from '@outrigger/protocol';
import { asRecord } from '../shared/sdkValues.ts';
import { createTimeQueryPieces } from './createTimeSettings.ts';
import { canBypassPermissions, mapPermissionMode } from './permissionMode.ts';

/** The Query options fixed at `start`; the runtime adds env, cwd, resume, hooks and callbacks. */
export type StartQueryOptions = Pick<
  Options,
  | 'systemPrompt'
  | 'plugins'
  | 'extraArgs'
  | 'settings'
  | 'effort'
  | 'tools'
  | 'allowedTools'
  | 'disallowedTools'
  | 'planModeInstructions'
>;

export interface ResolvedStartOptions {
  queryOptions: StartQueryOptions;
  /** The mode the first Query runs in: `plan` when plan mode was asked for. */
  permissionMode: PermissionMode;
  /** The mode leaving plan mode returns to; never `plan`. */
  basePermissionMode: PermissionMode;
  planMode: boolean;
  canBypassPermissions: boolean;
}

export interface StartOptionsContext {
  /** The sidecar's own env: the bypass gate reads `IS_SANDBOX` there, as Claude Code will. */
  processEnv: Readonly<Record<string, string | undefined>>;
  /** Defaults to this process's effective user id; tests pass it explicitly. */
  euid?: number | undefined;
}

/** Turns a `start` payload (and the host-set env variables in it) into the create-time Query options. */
export async function resolveStartOptions(
  payload: StartPayload,
  context: StartOptionsContext,
): Promise<ResolvedStartOptions> {
  const env = payload.env;
  const euid = 'euid' in context ? context.euid : process.geteuid?.();
  const bypass = canBypassPermissions({ euid, env: context.processEnv });
  const requestedMode = payload.permissionModeId || payload.settings.permissionModeId;
  const planMode = payload.settings.planMode || requestedMode.trim() === 'plan';
  const basePermissionMode = baseMode(mapPermissionMode(requestedMode, bypass));
  const append = payload.systemPromptAppend || (await systemPromptFromFile(env.TUTTI_CLAUDE_SYSTEM_PROMPT_FILE));
  const plugins = payload.plugins?.length
    ? { plugins: payload.plugins }
    : await pluginDirOptions(env.TUTTI_CLAUDE_PLUGIN_DIR);
  const extraArgs = { ...payload.extraArgs, ...plugins.extraArgs };
  return {
    queryOptions: {
      systemPrompt: { type: 'preset', preset: 'claude_code', ...(append ? { append } : {}) },
      ...(plugins.plugins ? { plugins: plugins.plugins } : {}),
      ...(Object.keys(extraArgs).length > 0 ? { extraArgs } : {}),
      ...createTimeQueryPieces({
        effort: payload.effort || payload.settings.effort,
        speed: payload.settings.speed,
        plansDirectory: env.TUTTI_CLAUDE_PLANS_DIRECTORY ?? '',
      }),
      ...(payload.tools ? { tools: payload.tools } : {}),
      ...(payload.allowedTools ? { allowedTools: payload.allowedTools } : {}),
      ...(payload.disallowedTools ? { disallowedTools: payload.disallowedTools } : {}),
      ...(payload.planModeInstructions ? { planModeInstructions: payload.planModeInstructions } : {}),
    },
    permissionMode: planMode ? 'plan' : basePermissionMode,
    basePermissionMode,
    planMode,
    canBypassPermissions: bypass,
  };
}

function baseMode(mode: PermissionMode): PermissionMode {
  return mode === 'plan' ? 'default' : mode;
}

async function systemPromptFromFile(path: string | undefined): Promise<string | undefined> {
  const file = path?.trim();
  if (!file) return undefined;
  try {
    return (await readFile(file, 'utf8')).trim() || undefined;
  } catch (error) {
    throw new Error(`cannot read TUTTI_CLAUDE_SYSTEM_PROMPT_FILE: ${errorCode(error)}`);
  }
}

interface PluginOptions {
  plugins?: SdkPluginConfig[];
  extraArgs?: Record<string, string>;
}

async function pluginDirOptions(path: string | undefined): Promise<PluginOptions> {
  const dir = path?.trim();
  if (!dir) return {};
  const isDirectory = await stat(dir).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
  if (!isDirectory) throw new Error('TUTTI_CLAUDE_PLUGIN_DIR must be a directory');
  return { plugins: [{ type: 'local', path: dir }], extraArgs: { 'plugin-dir': dir } };
}

function errorCode(error: unknown): string {
  const code = asRecord(error)?.code;
  return typeof code === 'string' ? code : 'read failed';
}

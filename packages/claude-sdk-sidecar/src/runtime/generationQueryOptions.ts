import type { CanUseTool, HookCallbackMatcher, Options, PostToolUseHookInput } from '@anthropic-ai/claude-agent-sdk';
import type { ResolvedStartOptions } from '../config/startOptions.ts';
import type { CreateTimeSettings } from './liveSessionSettings.ts';
import { asRecord } from './sdkMessages.ts';

export interface GenerationQueryOptionsInput {
  startOptions: ResolvedStartOptions;
  settings: CreateTimeSettings;
  cwd: string;
  /** The complete child env (the SDK's `env` replaces the child's environment). */
  env: Record<string, string>;
  executable: string | undefined;
  providerSessionId: string;
  /** Claude Code has a transcript for the session: the Query resumes it instead of creating it. */
  resumable: boolean;
  canUseTool: CanUseTool;
  postToolUse: HookCallbackMatcher;
}

/**
 * The options of one Query generation: the start options, then what every generation needs to be served
 * (partial messages, hook events, prompt echoes, the session's callbacks), the settings as they are now,
 * and `resume` once the session has a transcript.
 */
export function generationQueryOptions(input: GenerationQueryOptionsInput): Options {
  const { startOptions, settings: current } = input;
  const { queryOptions } = startOptions;
  const settings = { ...asRecord(queryOptions.settings), ...current.flagSettings };
  return {
    ...queryOptions,
    cwd: input.cwd,
    env: input.env,
    ...(input.executable ? { pathToClaudeCodeExecutable: input.executable } : {}),
    includePartialMessages: true,
    includeHookEvents: true,
    extraArgs: { ...queryOptions.extraArgs, 'replay-user-messages': null },
    permissionMode: current.permissionMode,
    allowDangerouslySkipPermissions: startOptions.canBypassPermissions,
    ...(current.model ? { model: current.model } : {}),
    ...(Object.keys(settings).length > 0 ? { settings } : {}),
    ...(input.resumable ? { resume: input.providerSessionId } : { sessionId: input.providerSessionId }),
    canUseTool: input.canUseTool,
    hooks: { PostToolUse: [input.postToolUse] },
  };
}

/**
 * The PostToolUse hook of one generation: feeds the projector's provisional tool results (TodoWrite path)
 * while the generation is live, and stops Claude Code from continuing on a revoked one.
 */
export function postToolUseHook(
  isLive: () => boolean,
  onPostToolUse: (input: PostToolUseHookInput, toolUseId: string | undefined) => void,
): HookCallbackMatcher {
  return {
    hooks: [
      async (input, toolUseId) => {
        if (!isLive()) return { continue: false };
        if (input.hook_event_name === 'PostToolUse') onPostToolUse(input, toolUseId);
        return {};
      },
    ],
  };
}

import type {
  CanUseTool,
  HookCallbackMatcher,
  HookEvent,
  HookInput,
  Options,
  PostToolUseHookInput,
  SessionStartHookInput,
} from '@anthropic-ai/claude-agent-sdk';
import type { ResolvedStartOptions } from '../config/startOptions.ts';
import { asRecord } from '../shared/sdkMessages.ts';
import type { CreateTimeSettings } from './liveSessionSettings.ts';

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
  hooks: GenerationHooks;
}

export type GenerationHooks = Partial<Record<HookEvent, HookCallbackMatcher[]>>;

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
    hooks: input.hooks,
  };
}

/** What the session does with the hooks of its live generation. */
export interface GenerationHookHandlers {
  /** Provisional tool results (TodoWrite path). */
  postToolUse(input: PostToolUseHookInput, toolUseId: string | undefined): void;
  /** The root agent's session started or resumed: its input names the transcript file. */
  sessionStart(input: SessionStartHookInput): void;
}

/**
 * The hooks of one generation (reference §3.1): PostToolUse, SessionStart, TaskCreated and TaskCompleted.
 * Every one is fenced: once the generation is revoked (cancel, close, retirement) it answers
 * `{continue: false}`, so a Query on its way out neither goes on nor creates or completes tasks; while it is
 * live, PostToolUse feeds the projector and the root SessionStart names the transcript. The plan itself
 * comes from the task tools' results, so TaskCreated and TaskCompleted only need the fence.
 */
export function generationHooks(isLive: () => boolean, handlers: GenerationHookHandlers): GenerationHooks {
  const fenced = (handle: (input: HookInput, toolUseId: string | undefined) => void): HookCallbackMatcher[] => [
    {
      hooks: [
        async (input, toolUseId) => {
          if (!isLive()) return { continue: false };
          handle(input, toolUseId);
          return {};
        },
      ],
    },
  ];
  return {
    PostToolUse: fenced((input, toolUseId) => {
      if (input.hook_event_name === 'PostToolUse') handlers.postToolUse(input, toolUseId);
    }),
    SessionStart: fenced((input) => {
      // A sub-agent's own session start names its own transcript, not the session's.
      if (input.hook_event_name === 'SessionStart' && input.agent_id === undefined) handlers.sessionStart(input);
    }),
    TaskCreated: fenced(() => undefined),
    TaskCompleted: fenced(() => undefined),
  };
}

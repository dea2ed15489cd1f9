import type { CanUseTool, Options } from '@anthropic-ai/claude-agent-sdk';
import {
  buildQueryEnv,
  generationHooks,
  generationQueryOptions,
  LiveSessionSettings,
  resolveClaudeExecutable,
  resolveStartOptions,
} from '@outrigger/claude-sdk-sidecar/bench';
import { startPayloadSchema } from '@outrigger/protocol';

/** A fresh `start` as the bench sends it: no restore, no settings, nothing applied since. */
export interface SidecarSessionStart {
  /** The sidecar's own environment: the lowest layer of the child env, and what the bypass gate reads. */
  processEnv: Readonly<Record<string, string | undefined>>;
  agentSessionId: string;
  cwd: string;
  /** The Claude Code session id (the sidecar picks a random one when `start` names none). */
  providerSessionId: string;
}

/**
 * Answers every permission question with "allow". The runtime's callback asks the host through the
 * session's interactive registry, which a raw loop has no host for. What Claude Code sees of the callback
 * is that one exists (the SDK then starts it with `--permission-prompt-tool stdio`) and, only when a tool
 * needs permission, an answer; the bench's scripted answers call no tool, so the command line and the
 * traffic are the same as with the runtime's callback.
 */
const allowEveryTool: CanUseTool = async (_toolName, input) => ({ behavior: 'allow', updatedInput: input });

/**
 * The options of the first Query the sidecar's runtime creates for `start`, built by the runtime's own
 * functions in the order `SessionRuntime` calls them (payload schema, start options, live settings, child
 * env, executable, generation options), so a raw `query()` given them cannot drift from the sidecar.
 *
 * The PostToolUse hook is the runtime's own, with its generation always live (the raw loop's one Query is
 * never retired while it runs) and no projector to feed: feeding the projector is the sidecar's layer,
 * the cost the ratio measures. Claude Code gets the same hook registration and the same answer.
 */
export async function sidecarFirstQueryOptions(start: SidecarSessionStart): Promise<Options> {
  const payload = startPayloadSchema.parse({
    agentSessionId: start.agentSessionId,
    cwd: start.cwd,
    providerSessionId: start.providerSessionId,
  });
  const startOptions = await resolveStartOptions(payload, { processEnv: start.processEnv });
  const settings = new LiveSessionSettings(payload.settings.model);
  settings.started(startOptions);
  const env = buildQueryEnv({ processEnv: start.processEnv, cwd: payload.cwd, payloadEnv: payload.env });
  return generationQueryOptions({
    startOptions,
    settings: settings.createTime(),
    cwd: payload.cwd,
    env,
    executable: resolveClaudeExecutable(env),
    providerSessionId: payload.providerSessionId,
    resumable: false,
    canUseTool: allowEveryTool,
    hooks: generationHooks(() => true, { postToolUse: () => undefined, sessionStart: () => undefined }),
  });
}

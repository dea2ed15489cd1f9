import { modelOptionOf, type TurnUsage } from '@outrigger/host-api';
import type { SessionRecord } from '../store/records.ts';
import type { ProjectionDraft } from './projectionDraft.ts';

/* Session-level facts the sidecar reports: provider state, the agent's title, usage and cost. */

export function sessionState(
  d: ProjectionDraft,
  payload: {
    providerSessionId: string;
    model?: string;
    configOptions?: SessionRecord['configOptions'];
    resumeCursor: SessionRecord['resumeCursor'];
  },
): void {
  const session = d.session;
  const configOptions = payload.configOptions ?? session.configOptions;
  // `model` is the user's selection (protocol 10); the model Claude Code runs is the option's effectiveValue.
  const effectiveModel = modelOptionOf(configOptions)?.effectiveValue ?? payload.model ?? session.effectiveModel;
  const same =
    session.providerSessionId === payload.providerSessionId &&
    session.effectiveModel === effectiveModel &&
    JSON.stringify(session.resumeCursor) === JSON.stringify(payload.resumeCursor) &&
    JSON.stringify(session.configOptions) === JSON.stringify(configOptions);
  if (same) return;
  d.patchSession({
    providerSessionId: payload.providerSessionId,
    resumeCursor: payload.resumeCursor,
    effectiveModel,
    configOptions,
  });
  const optionsChanged = JSON.stringify(session.configOptions) !== JSON.stringify(configOptions);
  if (effectiveModel !== session.effectiveModel || optionsChanged) {
    d.emit({
      type: 'settings',
      data: {
        session_id: d.sessionId,
        settings: d.session.settings,
        effectiveModel,
        ...(optionsChanged ? { configOptions: [...configOptions] } : {}),
      },
    });
  }
}

/** The session's slash commands as Claude Code last listed them (kept, so `/` lists them before the next start). */
export function slashCommands(d: ProjectionDraft, commands: SessionRecord['slashCommands']): void {
  if (JSON.stringify(d.session.slashCommands) === JSON.stringify(commands)) return;
  d.patchSession({ slashCommands: commands.map((command) => ({ ...command })) });
}

/**
 * Claude Code names the session again after every turn (its summary follows the latest prompt), so a title that
 * changed under the reader at each answer would be no name at all: the agent's first title replaces the default
 * once, and a rename always wins.
 */
export function agentTitle(d: ProjectionDraft, title: string): void {
  if (d.session.titleSource !== 'default' || title.trim() === '') return;
  d.patchSession({ title, titleSource: 'agent' }, true);
  d.emit({ type: 'title', data: { session_id: d.sessionId, title } });
}

export function usage(
  d: ProjectionDraft,
  payload: {
    turnId: string;
    usage?: Record<string, unknown>;
    contextWindow?: SessionRecord['usage']['contextWindow'];
    totalCostUsd?: number;
  },
): void {
  const tokens = (key: string): number | null => {
    const value = payload.usage?.[key];
    return typeof value === 'number' && Number.isFinite(value) ? value : null;
  };
  const usage = { ...d.session.usage };
  const input = tokens('input_tokens');
  const output = tokens('output_tokens');
  if (input !== null) usage.inputTokens += input;
  if (output !== null) usage.outputTokens += output;
  if (payload.contextWindow !== undefined) usage.contextWindow = payload.contextWindow;
  const turn = d.turn(payload.turnId);
  if (turn !== undefined && (payload.usage !== undefined || payload.totalCostUsd !== undefined)) {
    const before: TurnUsage = turn.usage ?? {
      inputTokens: null,
      outputTokens: null,
      cacheReadInputTokens: null,
      cacheCreationInputTokens: null,
      costUsd: null,
    };
    const add = (sum: number | null, value: number | null) => (value === null ? sum : (sum ?? 0) + value);
    d.putTurn({
      ...turn,
      usage: {
        inputTokens: add(before.inputTokens, input),
        outputTokens: add(before.outputTokens, output),
        cacheReadInputTokens: add(before.cacheReadInputTokens, tokens('cache_read_input_tokens')),
        cacheCreationInputTokens: add(before.cacheCreationInputTokens, tokens('cache_creation_input_tokens')),
        costUsd: payload.totalCostUsd ?? before.costUsd,
      },
    });
    if (payload.totalCostUsd !== undefined) {
      usage.totalCostUsd = (usage.totalCostUsd ?? 0) - (before.costUsd ?? 0) + payload.totalCostUsd;
    }
  } else if (payload.totalCostUsd !== undefined) {
    usage.totalCostUsd = (usage.totalCostUsd ?? 0) + payload.totalCostUsd;
  }
  if (JSON.stringify(usage) === JSON.stringify(d.session.usage) && d.turns.size === 0) return;
  d.patchSession({ usage });
  d.emit({
    type: 'usage',
    data: { session_id: d.sessionId, turnId: turn === undefined ? null : turn.id, usage },
  });
}

import type { SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import type { SidecarEventPayload } from '@outrigger/protocol';
import { asRecord } from '../shared/sdkMessages.ts';
import type { ClaudeQuery } from './claudeQuery.ts';

/**
 * The `usage_updated` payload after a root result: the context window snapshot when Claude Code can give
 * one (the window size preferring the result's per-model figure), otherwise the result's own usage. A
 * Query that is already out of service (`undefined`) is not asked.
 */
export async function usageAfterResult(
  query: ClaudeQuery | undefined,
  result: SDKResultMessage,
  turnId: string,
): Promise<SidecarEventPayload<'usage_updated'>> {
  let snapshot: Record<string, unknown> | undefined;
  try {
    snapshot = asRecord(await query?.getContextUsage?.());
  } catch {
    snapshot = undefined;
  }
  const usedTokens = snapshot?.totalTokens;
  if (snapshot && typeof usedTokens === 'number') {
    const model = typeof snapshot.model === 'string' ? snapshot.model : undefined;
    const totalTokens = resultContextWindow(result, model) ?? numeric(snapshot.maxTokens);
    return {
      turnId,
      contextWindow: {
        usedTokens,
        ...(totalTokens !== undefined ? { totalTokens } : {}),
        compactsAutomatically: snapshot.isAutoCompactEnabled === true,
      },
    };
  }
  return { turnId, usage: result.usage, modelUsage: result.modelUsage, totalCostUsd: result.total_cost_usd };
}

function resultContextWindow(result: SDKResultMessage, model: string | undefined): number | undefined {
  const entries = Object.entries(result.modelUsage ?? {});
  const wanted = model ? baseModel(model) : undefined;
  const match = entries.find(([name]) => baseModel(name) === wanted) ?? (entries.length === 1 ? entries[0] : undefined);
  return match ? numeric(match[1].contextWindow) : undefined;
}

function baseModel(name: string): string {
  return name.replace(/\[1m\]$/i, '');
}

function numeric(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

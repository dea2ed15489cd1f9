import { RequestError, type StopReason } from '@agentclientprotocol/sdk';
import type { SessionEventPayload } from '@outrigger/host-api';

/*
 * How a host turn answers `session/prompt`. A turn that completed ends with Claude's own stop reason where ACP
 * has one (`max_tokens`, `refusal`), else `end_turn`; a canceled one with `cancelled`, as ACP requires after a
 * `session/cancel`. A turn that failed, or was cut off by a host restart, is an error the editor shows, with
 * the host's message (never the prompt).
 */

export function stopReasonOf(
  done: SessionEventPayload<'done'>,
  result: SessionEventPayload<'result'> | undefined,
): StopReason {
  switch (done.outcome) {
    case 'completed':
      return claudeStopReason(result?.stopReason ?? null);
    case 'canceled':
      return 'cancelled';
    case 'failed':
      throw RequestError.internalError(
        { code: done.error?.code ?? null },
        `the turn failed: ${done.error?.message ?? 'no reason given'}`,
      );
    case 'interrupted':
      throw RequestError.internalError(
        { code: done.error?.code ?? 'interrupted' },
        `the turn was interrupted: ${done.error?.message ?? 'the host stopped while it ran'}`,
      );
  }
}

function claudeStopReason(stopReason: string | null): StopReason {
  if (stopReason === 'max_tokens') return 'max_tokens';
  if (stopReason === 'refusal') return 'refusal';
  return 'end_turn';
}

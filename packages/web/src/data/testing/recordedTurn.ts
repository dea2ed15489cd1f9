import type { SessionEvent } from '@outrigger/host-api';
import { ev, interaction, result, tool, userRow } from './fixtures.ts';

/**
 * A recorded turn as the host streams it: a prompt, thinking, streamed text, a Bash call that asks
 * permission, its hook result then its canonical one, a TodoWrite plan, usage, the result and `done`.
 * Seqs start at `from`.
 */
export function recordedTurn(from = 1, turnId = 't1'): SessionEvent[] {
  let seq = from;
  const next = () => seq++;
  const bash = tool({ id: 'tu1', input: { command: 'npm test' } });
  const approval = interaction({ requestId: 'r1', turnId, tool_use_id: 'tu1', input: { command: 'npm test' } });
  return [
    ev('status', next(), {
      status: 'running',
      closed: false,
      needsInputCount: 0,
      runningTurnId: turnId,
      lastError: null,
    }),
    ev('turn_started', next(), {
      turnId,
      kind: 'user',
      message: userRow(`${turnId}-u`, 'run the tests', { turnId, role: 'user', clientMessageId: 'c1' }),
    }),
    ev('thinking', next(), { turnId, messageId: `${turnId}-m1`, delta: 'Let me ', final: false, interrupted: false }),
    ev('thinking', next(), {
      turnId,
      messageId: `${turnId}-m1`,
      delta: '',
      final: true,
      text: 'Let me run them.',
      interrupted: false,
    }),
    ev('text', next(), { turnId, messageId: `${turnId}-m2`, delta: 'Running ', final: false, interrupted: false }),
    ev('text', next(), { turnId, messageId: `${turnId}-m2`, delta: 'the tests.', final: false, interrupted: false }),
    ev('text', next(), {
      turnId,
      messageId: `${turnId}-m2`,
      delta: '',
      final: true,
      text: 'Running the tests.',
      interrupted: false,
    }),
    ev('tool_use', next(), { turnId, messageId: `${turnId}-m3`, tool: bash }),
    ev('permission_request', next(), { turnId, interaction: approval }),
    ev('status', next(), {
      status: 'needs_input',
      closed: false,
      needsInputCount: 1,
      runningTurnId: turnId,
      lastError: null,
    }),
    ev('permission_resolved', next(), {
      turnId,
      requestId: 'r1',
      status: 'answered',
      resolution: 'answered',
      answer: { action: 'allow', optionId: 'allow', payload: {} },
    }),
    ev('status', next(), {
      status: 'running',
      closed: false,
      needsInputCount: 0,
      runningTurnId: turnId,
      lastError: null,
    }),
    ev('tool_output', next(), { turnId, messageId: `${turnId}-m3`, tool_use_id: 'tu1', output: 'PASS 1/2' }),
    ev('tool_result', next(), {
      turnId,
      messageId: `${turnId}-m3`,
      tool_use_id: 'tu1',
      status: 'completed',
      result: result('tu1', 'hook', 'PASS 2/2 (hook)'),
    }),
    ev('tool_result', next(), {
      turnId,
      messageId: `${turnId}-m3`,
      tool_use_id: 'tu1',
      status: 'completed',
      result: result('tu1', 'canonical', 'PASS 2/2'),
    }),
    ev('text', next(), {
      turnId,
      messageId: `${turnId}-m4`,
      delta: 'All tests pass.',
      final: true,
      text: 'All tests pass.',
      interrupted: false,
    }),
    ev('result', next(), {
      turnId,
      outcome: 'completed',
      stopReason: 'end_turn',
      error: null,
      usage: {
        inputTokens: 1200,
        outputTokens: 80,
        cacheReadInputTokens: 0,
        cacheCreationInputTokens: 0,
        costUsd: 0.01,
      },
      durationMs: 4200,
    }),
    ev('done', next(), { turnId, outcome: 'completed', error: null }),
    ev('status', next(), { status: 'idle', closed: false, needsInputCount: 0, runningTurnId: null, lastError: null }),
  ];
}

import type { SessionEvent } from '@outrigger/host-api';
import { ev, interaction, result, tool, userRow } from './fixtures.ts';

/**
 * A recorded turn as the host streams it: a prompt, thinking, streamed text, a Bash call that asks
 * permission, its hook result then its canonical one, usage, the result and `done`.
 * Seqs start at `from`.
 */
export function recordedTurn(from = 1, turnId = 't1'): SessionEvent[] {
  let seq = from;
  const next = () => seq++;
  const bash = tool({ id: 'tu1', input: { command: 'npm test' } });
  const approval = interaction({ requestId: 'r1', turnId, tool_use_id: 'tu1', input: { command: 'npm test' } });
  const status = (state: 'running' | 'needs_input' | 'idle') =>
    ev('status', next(), {
      status: state,
      closed: false,
      needsInputCount: state === 'needs_input' ? 1 : 0,
      runningTurnId: state === 'idle' ? null : turnId,
      queuePaused: false,
      lastError: null,
    });
  const delta = (kind: 'text' | 'thinking', message: string, text: string) =>
    ev(kind, next(), { turnId, messageId: `${turnId}-${message}`, delta: text, final: false, interrupted: false });
  const final = (kind: 'text' | 'thinking', message: string, text: string) =>
    ev(kind, next(), { turnId, messageId: `${turnId}-${message}`, delta: '', final: true, text, interrupted: false });
  const bashResult = (source: 'hook' | 'canonical', output: string) =>
    ev('tool_result', next(), {
      turnId,
      messageId: `${turnId}-m3`,
      tool_use_id: 'tu1',
      status: 'completed',
      result: result('tu1', source, output),
    });
  return [
    status('running'),
    ev('turn_started', next(), {
      turnId,
      kind: 'user',
      message: userRow(`${turnId}-u`, 'run the tests', { turnId, role: 'user', clientMessageId: 'c1' }),
    }),
    delta('thinking', 'm1', 'Let me '),
    final('thinking', 'm1', 'Let me run them.'),
    delta('text', 'm2', 'Running '),
    delta('text', 'm2', 'the tests.'),
    final('text', 'm2', 'Running the tests.'),
    ev('tool_use', next(), { turnId, messageId: `${turnId}-m3`, tool: bash }),
    ev('permission_request', next(), { turnId, interaction: approval }),
    status('needs_input'),
    ev('permission_resolved', next(), {
      turnId,
      requestId: 'r1',
      status: 'answered',
      resolution: 'answered',
      answer: { action: 'allow', optionId: 'allow', payload: {} },
    }),
    status('running'),
    ev('tool_output', next(), { turnId, messageId: `${turnId}-m3`, tool_use_id: 'tu1', output: 'PASS 1/2' }),
    bashResult('hook', 'PASS 2/2 (hook)'),
    bashResult('canonical', 'PASS 2/2'),
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
    status('idle'),
  ];
}

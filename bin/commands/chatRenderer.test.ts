import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SidecarEvent } from '@outrigger/protocol';
import { createChatRenderer } from './chatRenderer.ts';
import { plainText } from './terminalText.ts';

function setup() {
  let output = '';
  let clock = 0;
  const renderer = createChatRenderer({
    write: (segments) => {
      output += plainText(segments);
    },
    now: () => clock,
  });
  return {
    renderer,
    output: () => output,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

const tool = (type: 'tool_started' | 'tool_completed' | 'tool_failed', extra: Record<string, unknown> = {}) =>
  ({
    type,
    payload: {
      turnId: 't1',
      toolCallId: 'toolu_1',
      callId: 'toolu_1',
      toolName: 'Bash',
      callType: 'command',
      name: 'Bash',
      status: type === 'tool_started' ? 'streaming' : type === 'tool_failed' ? 'failed' : 'completed',
      input: { toolName: 'Bash', command: 'make test' },
      locations: [],
      metadata: { adapter: 'claude-agent-sdk', toolName: 'Bash' },
      ...extra,
    },
  }) as SidecarEvent;

test('deltas stream inline; a tool line starts on a fresh line; the turn ends with a summary', () => {
  const { renderer, output, advance } = setup();
  renderer.beginTurn('t1');
  const delta = (content: string): SidecarEvent => ({
    type: 'assistant_delta',
    payload: { turnId: 't1', messageId: 'm1', content, snapshot: content },
  });
  renderer.render(delta('Let me '));
  renderer.render(delta('check.'));
  renderer.render(tool('tool_started'));
  renderer.render(
    tool('tool_completed', { metadata: { adapter: 'claude-agent-sdk', toolName: 'Bash', resultSource: 'hook' } }),
  );
  renderer.render(tool('tool_completed'));
  advance(2_345);
  renderer.render({ type: 'turn_completed', payload: { turnId: 't1', stopReason: 'end_turn' } });
  assert.equal(output(), 'Let me check.\n▸ Bash make test\n✓ Bash\n— done (end_turn) · 2.3 s · 1 tool call\n');
});

test('a plan prints as a checklist and thinking is labelled', () => {
  const { renderer, output } = setup();
  renderer.render({
    type: 'thinking_delta',
    payload: { turnId: 't1', messageId: 'th1', content: 'Hmm.', snapshot: 'Hmm.' },
  });
  renderer.render({ type: 'thinking_completed', payload: { turnId: 't1', messageId: 'th1', content: 'Hmm.' } });
  renderer.render({
    type: 'plan_updated',
    payload: {
      turnId: 't1',
      entries: [
        { id: '1', content: 'Read', status: 'completed' },
        { id: '2', content: 'Write', status: 'in_progress' },
        { id: '3', content: 'Ship', status: 'pending' },
      ],
    },
  });
  assert.equal(output(), 'thinking: Hmm.\nPlan:\n  [x] Read\n  [~] Write\n  [ ] Ship\n');
});

test('failures and cancels end the turn with their own line', () => {
  const { renderer, output } = setup();
  renderer.beginTurn('t1');
  renderer.render(tool('tool_started'));
  renderer.render(tool('tool_failed', { error: 'exit 2\nmore detail' }));
  renderer.render({ type: 'turn_failed', payload: { turnId: 't1', error: 'API Error: 500\nbody' } });
  renderer.beginTurn('t2');
  renderer.render({ type: 'turn_canceled', payload: { turnId: 't2' } });
  assert.equal(
    output(),
    [
      '▸ Bash make test',
      '✗ Bash exit 2',
      '— failed: API Error: 500 · 0.0 s · 1 tool call',
      '— canceled · 0.0 s · 0 tool calls',
      '',
    ].join('\n'),
  );
});

test('answers render as markdown while they stream; thinking stays plain', () => {
  const { renderer, output } = setup();
  const delta = (type: 'assistant_delta' | 'thinking_delta', messageId: string, content: string): SidecarEvent =>
    ({ type, payload: { turnId: 't1', messageId, content, snapshot: content } }) as SidecarEvent;
  renderer.render(delta('thinking_delta', 'th1', 'maybe **this**'));
  for (const chunk of ['## Res', 'ult\n- **a', '** b\n', '1. `c`'])
    renderer.render(delta('assistant_delta', 'm1', chunk));
  assert.equal(output(), 'thinking: maybe **this**\nResult\n• a b\n1. c', 'the last line streams before it ends');
  renderer.render({ type: 'assistant_completed', payload: { turnId: 't1', messageId: 'm1', content: '' } });
  assert.equal(output(), 'thinking: maybe **this**\nResult\n• a b\n1. c\n');
});

test('the plan tool shows as its checklist only, unless it fails; a question shows no input summary', () => {
  const { renderer, output } = setup();
  renderer.beginTurn('t1');
  const todo = { name: 'TodoWrite', input: { todos: [{ content: 'x', status: 'pending' }] } };
  renderer.render(tool('tool_started', todo));
  renderer.render(tool('tool_completed', todo));
  renderer.render(tool('tool_started', { ...todo, toolCallId: 'toolu_2' }));
  renderer.render(tool('tool_failed', { ...todo, toolCallId: 'toolu_2', error: 'bad todos' }));
  renderer.render(tool('tool_started', { name: 'AskUserQuestion', input: { questions: [{ question: 'Which?' }] } }));
  renderer.render({ type: 'turn_completed', payload: { turnId: 't1', stopReason: 'end_turn' } });
  assert.equal(output(), '✗ TodoWrite bad todos\n▸ AskUserQuestion\n— done (end_turn) · 0.0 s · 3 tool calls\n');
});

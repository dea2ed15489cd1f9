import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SidecarEvent } from '@outrigger/protocol';
import { type ToolTimeoutHit, ToolTimeouts } from './toolTimeouts.ts';

function tool(
  type: 'tool_started' | 'tool_completed' | 'tool_updated',
  id: string,
  extra: Record<string, unknown> = {},
) {
  return {
    type,
    payload: {
      turnId: 't1',
      toolCallId: id,
      callId: id,
      toolName: 'Bash',
      callType: 'command',
      name: 'Bash',
      status: type === 'tool_completed' ? 'completed' : 'streaming',
      input: {},
      locations: [],
      metadata: { adapter: 'claude-agent-sdk', toolName: 'Bash' },
      ...extra,
    },
  } as SidecarEvent;
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a tool running past the limit is reported once; a finished, background or interactive one never', async () => {
  const hits: ToolTimeoutHit[] = [];
  const timeouts = new ToolTimeouts({ limitMs: 40, onTimeout: (hit) => hits.push(hit) });
  timeouts.observe(tool('tool_started', 'slow'));
  timeouts.observe(tool('tool_started', 'quick'));
  timeouts.observe(tool('tool_completed', 'quick'));
  timeouts.observe(tool('tool_started', 'bg'));
  timeouts.observe(
    tool('tool_updated', 'bg', {
      metadata: { adapter: 'claude-agent-sdk', toolName: 'Bash', backgroundProcess: { status: 'running' } },
    }),
  );
  timeouts.observe(tool('tool_started', 'question', { callType: 'interactive' }));
  await settle(120);
  assert.deepEqual(
    hits.map((hit) => [hit.toolUseId, hit.turnId, hit.toolName]),
    [['slow', 't1', 'Bash']],
  );
  assert.ok((hits[0]?.elapsedSeconds ?? 0) >= 0.04);
  timeouts.clear();
});

test('waiting for an approval does not count; the turn ending stops the clock', async () => {
  const hits: ToolTimeoutHit[] = [];
  const timeouts = new ToolTimeouts({ limitMs: 50, onTimeout: (hit) => hits.push(hit) });
  timeouts.observe(tool('tool_started', 'asks'));
  timeouts.observe({
    type: 'approval_requested',
    payload: {
      turnId: 't1',
      requestId: 'r1',
      toolCallId: 'asks',
      toolName: 'Bash',
      input: {},
      options: [],
      toolCall: {},
    },
  } as unknown as SidecarEvent);
  await settle(90);
  assert.deepEqual(hits, [], 'paused while the person decides');
  timeouts.observe({
    type: 'approval_resolved',
    payload: { turnId: 't1', requestId: 'r1', action: 'allow', optionId: 'allow', payload: {} },
  } as SidecarEvent);
  await settle(90);
  assert.equal(hits.length, 1);

  timeouts.observe(tool('tool_started', 'ended'));
  timeouts.observe({ type: 'turn_canceled', payload: { turnId: 't1' } } as SidecarEvent);
  await settle(90);
  assert.equal(hits.length, 1);
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { ManualTimers } from '../continuation/manualTimers.ts';
import { StreamStallWatchdog } from './streamStallWatchdog.ts';

const sdk = (fields: Record<string, unknown>): SDKMessage => fields as unknown as SDKMessage;
const stream = (type: string, parent: string | null = null) =>
  sdk({ type: 'stream_event', event: { type }, parent_tool_use_id: parent });
const requesting = (parent: string | null = null) =>
  sdk({ type: 'system', subtype: 'status', status: 'requesting', parent_tool_use_id: parent });
const apiRetry = () => sdk({ type: 'system', subtype: 'api_retry', parent_tool_use_id: null });
const toolProgress = () => sdk({ type: 'tool_progress', parent_tool_use_id: null });
const result = () => sdk({ type: 'result', subtype: 'success', parent_tool_use_id: null });

function setup() {
  const timers = new ManualTimers();
  const log: string[] = [];
  const watchdog = new StreamStallWatchdog({
    warningMs: 15_000,
    budgetMs: 120_000,
    timers,
    onStalled: (silentMs) => log.push(`stalled:${silentMs}`),
    onBudgetExceeded: (silentMs) => log.push(`budget:${silentMs}`),
  });
  return { timers, log, watchdog };
}

describe('StreamStallWatchdog', () => {
  it('reports an open, silent stream every 15 s and stops it once at 120 s', () => {
    const { timers, log, watchdog } = setup();
    watchdog.observe(requesting());
    watchdog.observe(stream('message_start'));
    watchdog.observe(stream('content_block_delta'));
    timers.advance(14_999);
    assert.deepEqual(log, []);
    timers.advance(1);
    assert.deepEqual(log, ['stalled:15000']);
    timers.advance(105_000);
    assert.deepEqual(log, [
      'stalled:15000',
      'stalled:30000',
      'stalled:45000',
      'stalled:60000',
      'stalled:75000',
      'stalled:90000',
      'stalled:105000',
      'budget:120000',
    ]);
    timers.advance(60_000);
    assert.equal(log.length, 8, 'nothing after the budget');
    assert.equal(timers.pending, 0);
  });

  it('counts silence from the last data of the stream; data resets the warnings', () => {
    const { timers, log, watchdog } = setup();
    watchdog.observe(stream('message_start'));
    timers.advance(16_000);
    assert.deepEqual(log, ['stalled:15000']);
    watchdog.observe(stream('content_block_delta'));
    timers.advance(14_000);
    assert.deepEqual(log, ['stalled:15000'], 'a new silence starts at the last delta');
    timers.advance(1_000);
    assert.deepEqual(log, ['stalled:15000', 'stalled:15000']);
  });

  it('is silent while no stream is open: a quiet tool, a retry backoff, after the message ended', () => {
    const { timers, log, watchdog } = setup();
    watchdog.observe(stream('message_start'));
    watchdog.observe(stream('message_delta'));
    watchdog.observe(stream('message_stop'));
    watchdog.observe(toolProgress());
    timers.advance(600_000);
    assert.deepEqual(log, [], 'a tool that runs for ten minutes is no stall');
    watchdog.observe(requesting());
    watchdog.observe(apiRetry());
    timers.advance(600_000);
    assert.deepEqual(log, [], 'Claude Code waiting before a retry is no stall');
    assert.equal(timers.pending, 0);
  });

  it('counts a request with no answer at all (status requesting, no message_start)', () => {
    const { timers, log, watchdog } = setup();
    watchdog.observe(requesting());
    timers.advance(120_000);
    assert.equal(log.at(-1), 'budget:120000');
  });

  it("tracks a sub-agent's stream apart from the root's", () => {
    const { timers, log, watchdog } = setup();
    watchdog.observe(stream('message_start', 'toolu_agent'));
    watchdog.observe(stream('message_start'));
    watchdog.observe(stream('message_stop'));
    timers.advance(15_000);
    assert.deepEqual(log, ['stalled:15000'], 'the sub-agent stream is still open');
    watchdog.observe(stream('message_stop', 'toolu_agent'));
    timers.advance(200_000);
    assert.deepEqual(log, ['stalled:15000']);
  });

  it('stops at the root result or disarm, and starts over for the next stream', () => {
    const { timers, log, watchdog } = setup();
    watchdog.observe(stream('message_start'));
    watchdog.observe(result());
    timers.advance(200_000);
    assert.deepEqual(log, []);
    watchdog.observe(stream('message_start'));
    timers.advance(120_000);
    assert.equal(log.at(-1), 'budget:120000');
    watchdog.disarm();
    watchdog.observe(stream('message_start'));
    timers.advance(15_000);
    assert.equal(log.at(-1), 'stalled:15000', 'a disarmed watchdog watches the next stream again');
  });
});

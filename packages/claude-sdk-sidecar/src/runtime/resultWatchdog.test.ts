import assert from 'node:assert/strict';
import { afterEach, beforeEach, mock, test } from 'node:test';
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { streamEvent, textDelta } from '../testing/sdkMessageBuilders.ts';
import { ResultWatchdog } from './resultWatchdog.ts';

const TIMEOUT_MS = 20;
const finalDelta = streamEvent({ type: 'message_delta', delta: { stop_reason: 'end_turn' } });

// Mocked timers: time moves only through mock.timers.tick, so nothing here depends on the machine's load.
beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
afterEach(() => mock.timers.reset());

function countingWatchdog(): { watchdog: ResultWatchdog; fired: () => number } {
  let fired = 0;
  const watchdog = new ResultWatchdog(TIMEOUT_MS, () => {
    fired += 1;
  });
  return { watchdog, fired: () => fired };
}

test('fires once the final answer is followed by silence', () => {
  const { watchdog, fired } = countingWatchdog();
  watchdog.observe(textDelta('x'));
  mock.timers.tick(TIMEOUT_MS * 10);
  assert.equal(fired(), 0, 'streaming alone does not arm it');
  watchdog.observe(finalDelta);
  mock.timers.tick(TIMEOUT_MS - 1);
  assert.equal(fired(), 0, 'not before the timeout');
  mock.timers.tick(1);
  assert.equal(fired(), 1);
  mock.timers.tick(TIMEOUT_MS * 10);
  assert.equal(fired(), 1, 'it fires once');
});

test('every later message of the Query restarts the silence', () => {
  const { watchdog, fired } = countingWatchdog();
  watchdog.observe(finalDelta);
  mock.timers.tick(TIMEOUT_MS - 1);
  watchdog.observe(textDelta('hook output'));
  mock.timers.tick(TIMEOUT_MS - 1);
  assert.equal(fired(), 0, 'the silence restarted with the later message');
  mock.timers.tick(1);
  assert.equal(fired(), 1);
});

test('a new response or a disarm stops it', () => {
  const { watchdog, fired } = countingWatchdog();
  watchdog.observe(finalDelta);
  watchdog.observe(streamEvent({ type: 'message_start', message: {} }));
  mock.timers.tick(TIMEOUT_MS * 10);
  watchdog.observe(finalDelta);
  watchdog.disarm();
  mock.timers.tick(TIMEOUT_MS * 10);
  assert.equal(fired(), 0);
});

test("a sub-agent's final answer does not arm it", () => {
  const { watchdog, fired } = countingWatchdog();
  watchdog.observe({ ...finalDelta, parent_tool_use_id: 'toolu_agent' } as SDKMessage);
  mock.timers.tick(TIMEOUT_MS * 10);
  assert.equal(fired(), 0);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { streamEvent, textDelta } from '../testing/sdkMessageBuilders.ts';
import { ResultWatchdog } from './resultWatchdog.ts';

const finalDelta = streamEvent({ type: 'message_delta', delta: { stop_reason: 'end_turn' } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('fires once the final answer is followed by silence', async () => {
  let fired = 0;
  const watchdog = new ResultWatchdog(20, () => {
    fired += 1;
  });
  watchdog.observe(textDelta('x'));
  await sleep(40);
  assert.equal(fired, 0, 'streaming alone does not arm it');
  watchdog.observe(finalDelta);
  await sleep(60);
  assert.equal(fired, 1);
});

test('a new response or a disarm stops it', async () => {
  let fired = 0;
  const watchdog = new ResultWatchdog(20, () => {
    fired += 1;
  });
  watchdog.observe(finalDelta);
  watchdog.observe(streamEvent({ type: 'message_start', message: {} }));
  await sleep(50);
  watchdog.observe(finalDelta);
  watchdog.disarm();
  await sleep(50);
  assert.equal(fired, 0);
});

test("a sub-agent's final answer does not arm it", async () => {
  let fired = 0;
  const watchdog = new ResultWatchdog(20, () => {
    fired += 1;
  });
  watchdog.observe({ ...finalDelta, parent_tool_use_id: 'toolu_agent' } as SDKMessage);
  await sleep(50);
  assert.equal(fired, 0);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AssistantStream } from './assistantStream.ts';
import { recordEvents } from './fixtures/sdkFixtures.ts';

const TURN = 'turn-1';

function setup() {
  const { events, emit } = recordEvents();
  return { events, stream: new AssistantStream(emit) };
}

test('a block with no stream is supplied as one fallback completion', () => {
  const { events, stream } = setup();
  stream.completeBlock('msg_1', 'assistant', 'Only consolidated.', false, TURN);
  assert.deepEqual(events, [
    {
      type: 'assistant_completed',
      payload: { turnId: TURN, messageId: 'claude-sdk:assistant:msg_1:fallback:0', content: 'Only consolidated.' },
    },
  ]);
});

test('content_block_stop before the consolidated message: one completion, no fallback', () => {
  const { events, stream } = setup();
  stream.messageStart('msg_1', TURN);
  stream.blockStart(0, 'assistant', '', TURN);
  stream.delta(0, 'assistant', 'Hi', TURN);
  assert.equal(stream.blockStop(0, TURN), true);
  stream.completeBlock('msg_1', 'assistant', 'Hi', false, TURN);
  assert.deepEqual(
    events.map((event) => event.type),
    ['assistant_delta', 'assistant_completed'],
  );
  assert.equal(events[1]?.payload.messageId, 'claude-sdk:assistant:msg_1:live:0');
});

test('consolidated blocks match streamed blocks in order, one message per block', () => {
  const { events, stream } = setup();
  stream.messageStart('msg_1', TURN);
  stream.blockStart(0, 'assistant', '', TURN);
  stream.delta(0, 'assistant', 'first', TURN);
  stream.completeBlock('msg_1', 'assistant', 'first', false, TURN);
  stream.blockStop(0, TURN);
  stream.blockStart(2, 'assistant', '', TURN);
  stream.delta(2, 'assistant', 'second', TURN);
  stream.completeBlock('msg_1', 'assistant', 'second', false, TURN);
  stream.blockStop(2, TURN);
  const completed = events.filter((event) => event.type === 'assistant_completed').map((event) => event.payload);
  assert.deepEqual(
    completed.map((payload) => [payload.messageId, payload.content]),
    [
      ['claude-sdk:assistant:msg_1:live:0', 'first'],
      ['claude-sdk:assistant:msg_1:live:1', 'second'],
    ],
  );
});

test('a stream cut short is finished from the consolidated text: tail delta, then completion', () => {
  const { events, stream } = setup();
  stream.messageStart('msg_1', TURN);
  stream.blockStart(0, 'assistant', '', TURN);
  stream.delta(0, 'assistant', 'Hello', TURN);
  stream.completeBlock('msg_1', 'assistant', 'Hello world', false, TURN);
  assert.deepEqual(
    events.map((event) => [event.type, event.payload.content, event.payload.snapshot]),
    [
      ['assistant_delta', 'Hello', 'Hello'],
      ['assistant_delta', ' world', 'Hello world'],
      ['assistant_completed', 'Hello world', undefined],
    ],
  );
});

test('an assistant message carrying an SDK error fails its text', () => {
  const { events, stream } = setup();
  stream.completeBlock('msg_err', 'assistant', 'API Error: 529 overloaded', true, TURN);
  assert.deepEqual(
    events.map((event) => [event.type, event.payload.content]),
    [['assistant_failed', 'API Error: 529 overloaded']],
  );
});

test('thinking streams and completes under its own kind', () => {
  const { events, stream } = setup();
  stream.messageStart('msg_1', TURN);
  stream.blockStart(0, 'thinking', '', TURN);
  stream.delta(0, 'thinking', 'hmm', TURN);
  stream.completeBlock('msg_1', 'thinking', 'hmm', false, TURN);
  assert.deepEqual(
    events.map((event) => [event.type, event.payload.messageId]),
    [
      ['thinking_delta', 'claude-sdk:thinking:msg_1:live:0'],
      ['thinking_completed', 'claude-sdk:thinking:msg_1:live:0'],
    ],
  );
});

test('a delta without its block start still streams', () => {
  const { events, stream } = setup();
  stream.messageStart('msg_1', TURN);
  stream.delta(3, 'assistant', 'late', TURN);
  stream.blockStop(3, TURN);
  stream.messageDelivered(TURN);
  assert.deepEqual(
    events.map((event) => event.type),
    ['assistant_delta', 'assistant_completed'],
  );
});

test('a stopped block completes once its message is delivered (message_delta), not at its block stop', () => {
  const { events, stream } = setup();
  stream.messageStart('msg_1', TURN);
  stream.blockStart(0, 'assistant', '', TURN);
  stream.delta(0, 'assistant', 'Whole answer', TURN);
  stream.blockStop(0, TURN);
  assert.deepEqual(
    events.map((event) => event.type),
    ['assistant_delta'],
    'a block stop alone does not prove the message arrived',
  );
  stream.messageDelivered(TURN);
  stream.messageStop(TURN);
  assert.deepEqual(
    events.map((event) => [event.type, event.payload.content]),
    [
      ['assistant_delta', 'Whole answer'],
      ['assistant_completed', 'Whole answer'],
    ],
  );
});

test('a message cut off mid-stream (stopped, never delivered) ends its partial with assistant_failed', () => {
  const { events, stream } = setup();
  // What Claude Code emits for a broken connection: the blocks and the message closed, no message_delta,
  // no consolidated message; then its retry streams the full answer as a new message.
  stream.messageStart('msg_cut', TURN);
  stream.blockStart(0, 'assistant', '', TURN);
  stream.delta(0, 'assistant', 'partial ', TURN);
  stream.blockStop(0, TURN);
  stream.messageStop(TURN);
  stream.messageStart('msg_retry', TURN);
  stream.blockStart(0, 'assistant', '', TURN);
  stream.delta(0, 'assistant', 'the full answer', TURN);
  stream.completeBlock('msg_retry', 'assistant', 'the full answer', false, TURN);
  stream.blockStop(0, TURN);
  stream.messageDelivered(TURN);
  stream.messageStop(TURN);
  assert.deepEqual(
    events.map((event) => [event.type, event.payload.messageId, event.payload.content]),
    [
      ['assistant_delta', 'claude-sdk:assistant:msg_cut:live:0', 'partial '],
      ['assistant_failed', 'claude-sdk:assistant:msg_cut:live:0', 'partial '],
      ['assistant_delta', 'claude-sdk:assistant:msg_retry:live:1', 'the full answer'],
      ['assistant_completed', 'claude-sdk:assistant:msg_retry:live:1', 'the full answer'],
    ],
  );
});

test('a message cut off without even a message_stop fails its partial when the next one starts', () => {
  const { events, stream } = setup();
  stream.messageStart('msg_cut', TURN);
  stream.blockStart(0, 'assistant', '', TURN);
  stream.delta(0, 'assistant', 'half', TURN);
  stream.messageStart('msg_retry', TURN);
  assert.deepEqual(
    events.map((event) => [event.type, event.payload.content]),
    [
      ['assistant_delta', 'half'],
      ['assistant_failed', 'half'],
    ],
  );
});

test('blockStop reports indexes that are not text or thinking', () => {
  const { stream } = setup();
  stream.messageStart('msg_1', TURN);
  assert.equal(stream.blockStop(1, TURN), false);
});

test('reset forgets streamed segments: the consolidated block then falls back', () => {
  const { events, stream } = setup();
  stream.messageStart('msg_1', TURN);
  stream.blockStart(0, 'assistant', '', TURN);
  stream.delta(0, 'assistant', 'partial', TURN);
  stream.reset();
  stream.completeBlock('msg_1', 'assistant', 'partial', false, TURN);
  assert.match(String(events.at(-1)?.payload.messageId), /:fallback:\d+$/);
});

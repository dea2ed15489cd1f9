import assert from 'node:assert/strict';
import { test } from 'node:test';
import { messageJson, messageStreamEvents, scriptMessage } from './messageEvents.ts';
import type { MessageReply } from './scenarioSchema.ts';
import { encodeSseEvent, parseSseStream } from './sse.ts';

const context = { model: 'claude-test', inputTokens: 42 };

/** Rebuilds the assistant message from stream events, the way an SDK accumulates them. */
function accumulate(frames: { event: string; data: unknown }[]) {
  const blocks: Record<string, unknown>[] = [];
  const partialJson: string[] = [];
  let stopReason: unknown;
  let usage: unknown;
  for (const { event, data } of frames) {
    const payload = data as Record<string, never>;
    assert.equal(payload.type, event, 'every data payload repeats its event name as type');
    if (event === 'content_block_start') {
      blocks[payload.index] = { ...(payload.content_block as object) };
      partialJson[payload.index] = '';
    } else if (event === 'content_block_delta') {
      const block = blocks[payload.index] as Record<string, string>;
      const delta = payload.delta as Record<string, string>;
      if (delta.type === 'text_delta') block.text += delta.text;
      else if (delta.type === 'thinking_delta') block.thinking += delta.thinking;
      else if (delta.type === 'signature_delta') block.signature = delta.signature;
      else if (delta.type === 'input_json_delta') partialJson[payload.index] += delta.partial_json;
    } else if (event === 'content_block_stop') {
      const json = partialJson[payload.index];
      if (json) (blocks[payload.index] as Record<string, unknown>).input = JSON.parse(json);
    } else if (event === 'message_delta') {
      stopReason = (payload.delta as Record<string, unknown>).stop_reason;
      usage = payload.usage;
    }
  }
  return { blocks, stopReason, usage };
}

test('a multi-block reply round-trips through SSE encoding', () => {
  const reply: MessageReply = {
    content: [
      { type: 'thinking', thinking: 'Let me think about it.', chunkSize: 5, signature: 'sig' },
      { type: 'text', text: 'Hello 👋 world, in small chunks.', chunkSize: 3 },
      { type: 'tool_use', name: 'Bash', input: { command: 'echo hi', nested: { a: [1, 2] } }, id: 'toolu_fixed' },
    ],
  };
  const events = messageStreamEvents(scriptMessage(reply, context));
  const wire = events.map((event) => encodeSseEvent(event.event, event.data)).join('');
  const frames = parseSseStream(wire);
  assert.equal(frames[0]?.event, 'message_start');
  assert.deepEqual(
    frames.slice(-2).map((frame) => frame.event),
    ['message_delta', 'message_stop'],
  );
  const textDeltas = frames.filter(
    (frame) => (frame.data as { delta?: { type?: string } }).delta?.type === 'text_delta',
  );
  assert.equal(textDeltas.length, Math.ceil(Array.from('Hello 👋 world, in small chunks.').length / 3));

  const message = accumulate(frames);
  assert.deepEqual(message.blocks, [
    { type: 'thinking', thinking: 'Let me think about it.', signature: 'sig' },
    { type: 'text', text: 'Hello 👋 world, in small chunks.' },
    { type: 'tool_use', id: 'toolu_fixed', name: 'Bash', input: { command: 'echo hi', nested: { a: [1, 2] } } },
  ]);
  assert.equal(message.stopReason, 'tool_use', 'a tool_use block implies stop_reason tool_use');
  const usage = message.usage as { input_tokens: number; output_tokens: number };
  assert.equal(usage.input_tokens, 42);
  assert.ok(usage.output_tokens > 0);
});

test('tool_use starts with an empty input and sends the whole JSON in one delta', () => {
  const events = messageStreamEvents(
    scriptMessage({ content: [{ type: 'tool_use', name: 'TodoWrite', input: { todos: [] } }] }, context),
  );
  const start = events.find((event) => event.event === 'content_block_start');
  const block = start?.data.content_block as { id: string; input: unknown };
  assert.deepEqual(block.input, {});
  assert.match(block.id, /^toolu_/);
  const deltas = events.filter((event) => event.event === 'content_block_delta');
  assert.deepEqual(
    deltas.map((event) => event.data.delta),
    [{ type: 'input_json_delta', partial_json: '{"todos":[]}' }],
  );
});

test('scripted stop reason, usage and chunk delays are honoured; ids are fresh per message', () => {
  const reply: MessageReply = {
    content: [
      { type: 'text', text: 'abcdef', chunkSize: 2, chunkDelayMs: 50 },
      { type: 'tool_use', name: 'Bash', input: {} },
    ],
    stopReason: 'max_tokens',
    usage: { input_tokens: 7, output_tokens: 9 },
  };
  const first = scriptMessage(reply, context);
  const second = scriptMessage(reply, context);
  assert.notEqual(first.id, second.id);
  assert.notEqual(
    first.content[1]?.type === 'tool_use' && first.content[1].id,
    second.content[1]?.type === 'tool_use' && second.content[1].id,
  );
  const events = messageStreamEvents(first);
  const delays = events.filter((event) => event.event === 'content_block_delta').map((event) => event.delayMs);
  assert.deepEqual(delays, [0, 50, 50, 0], 'no pause before the first chunk, none for tool input');
  assert.deepEqual(events.at(-2)?.data, {
    type: 'message_delta',
    delta: { stop_reason: 'max_tokens', stop_sequence: null },
    usage: { input_tokens: 7, output_tokens: 9 },
  });
});

test('the non-streaming body is a complete message', () => {
  const body = messageJson(scriptMessage({ content: [{ type: 'text', text: 'hi' }] }, context));
  assert.equal(body.type, 'message');
  assert.equal(body.role, 'assistant');
  assert.equal(body.model, 'claude-test');
  assert.deepEqual(body.content, [{ type: 'text', text: 'hi' }]);
  assert.equal(body.stop_reason, 'end_turn');
  assert.equal((body.usage as { input_tokens: number }).input_tokens, 42);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readSseFrames } from './sseFrames.ts';

function bodyOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

test('frames split across chunks arrive whole, with their id, type and parsed data', async () => {
  const frames = [];
  const body = bodyOf([
    'id: 7\nevent: te',
    'xt\ndata: {"delta":"he',
    'llo"}\n\n',
    'event: heartbeat\ndata: {"time":1}\n\n',
  ]);
  for await (const frame of readSseFrames(body)) frames.push(frame);
  assert.deepEqual(frames, [
    { id: '7', event: 'text', data: { delta: 'hello' } },
    { id: undefined, event: 'heartbeat', data: { time: 1 } },
  ]);
});

test('a consumer that stops early cancels the body', async () => {
  let canceled = false;
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode('id: 1\nevent: a\ndata: {}\n\nid: 2\nevent: b\ndata: {}\n\n'));
    },
    cancel() {
      canceled = true;
    },
  });
  for await (const frame of readSseFrames(body)) {
    assert.equal(frame.id, '1');
    break;
  }
  assert.equal(canceled, true);
});

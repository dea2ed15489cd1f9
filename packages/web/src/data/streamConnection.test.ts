import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HostApiError, type SseFrame } from '@outrigger/host-api';
import { type ConnectionState, StreamConnection, type StreamFrame } from './streamConnection.ts';
import { within } from './testing/deadline.ts';
import { FakeTimers, settle } from './testing/fakeTimers.ts';

/** A fake host stream per connection: the test pushes frames, ends it, or lets it hang. */
class FakeStream {
  readonly frames: SseFrame[] = [];
  #wake: (() => void) | undefined;
  #ended = false;

  readonly after: number;
  readonly signal: AbortSignal;

  constructor(after: number, signal: AbortSignal) {
    this.after = after;
    this.signal = signal;
    signal.addEventListener('abort', () => this.#wake?.());
  }

  push(...frames: SseFrame[]): void {
    this.frames.push(...frames);
    this.#wake?.();
  }

  end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  async *iterate(): AsyncGenerator<SseFrame> {
    while (true) {
      if (this.signal.aborted) return;
      const frame = this.frames.shift();
      if (frame !== undefined) {
        yield frame;
        continue;
      }
      if (this.#ended) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }
}

function setup(options: { after?: number; openError?: () => unknown } = {}) {
  const timers = new FakeTimers();
  const streams: FakeStream[] = [];
  const frames: StreamFrame[] = [];
  const states: ConnectionState[] = [];
  const connection = new StreamConnection({
    after: options.after ?? 0,
    timers,
    open: async (after, signal) => {
      const error = options.openError?.();
      if (error !== undefined) throw error;
      const stream = new FakeStream(after, signal);
      streams.push(stream);
      return stream.iterate();
    },
    onFrame: (frame) => frames.push(frame),
    onState: (state) => states.push(state),
  });
  const running = connection.run();
  return { timers, streams, frames, states, connection, running };
}

const event = (seq: number, type = 'text'): SseFrame => ({ id: String(seq), event: type, data: { seq } });
const heartbeat: SseFrame = { id: undefined, event: 'heartbeat', data: { time: 1 } };

test('delivers events in order, skips heartbeats and replayed seqs', async () => {
  const { streams, frames, states, connection, running } = setup({ after: 2 });
  await settle();
  assert.equal(streams[0]?.after, 2);
  streams[0]?.push(event(2), event(3), heartbeat, event(3), event(4));
  await settle();
  assert.deepEqual(
    frames.map((f) => f.seq),
    [3, 4],
  );
  assert.deepEqual(states, ['live']);
  connection.stop();
  await within('the connection to end after stop()', running);
});

test('after a break it reconnects with the last seq it delivered', async () => {
  const { timers, streams, frames, states, connection, running } = setup();
  await settle();
  streams[0]?.push(event(1), event(2));
  streams[0]?.end();
  await settle();
  assert.equal(states.at(-1), 'disconnected');
  await timers.advance(250);
  assert.equal(streams.length, 2);
  assert.equal(streams[1]?.after, 2);
  streams[1]?.push(event(2), event(3));
  await settle();
  assert.deepEqual(
    frames.map((f) => f.seq),
    [1, 2, 3],
  );
  assert.equal(states.at(-1), 'live');
  connection.stop();
  await within('the connection to end after stop()', running);
});

test('a stream silent for 45 s is called dead, shown disconnected and reopened', async () => {
  const { timers, streams, states, connection, running } = setup();
  await settle();
  streams[0]?.push(event(1));
  await settle();
  await timers.advance(30_000);
  streams[0]?.push(heartbeat);
  await settle();
  await timers.advance(44_000);
  assert.equal(streams.length, 1, 'a heartbeat keeps it alive');
  await timers.advance(1_000);
  assert.equal(streams[0]?.signal.aborted, true);
  assert.equal(states.at(-1), 'disconnected');
  await timers.advance(250);
  assert.equal(streams.length, 2);
  assert.equal(streams[1]?.after, 1);
  connection.stop();
  await within('the connection to end after stop()', running);
});

test('failed opens back off, and reconnectNow skips the wait', async () => {
  let failures = 2;
  const { timers, streams, states, connection, running } = setup({
    openError: () => (failures-- > 0 ? new TypeError('fetch failed') : undefined),
  });
  await settle();
  assert.equal(states.at(-1), 'disconnected');
  await timers.advance(250);
  assert.equal(streams.length, 0);
  connection.reconnectNow();
  await settle();
  assert.equal(streams.length, 1);
  assert.equal(states.at(-1), 'live');
  connection.stop();
  await within('the connection to end after stop()', running);
});

test('401 stops as unauthorized, 404 as gone', async () => {
  for (const [status, expected] of [
    [401, 'unauthorized'],
    [404, 'gone'],
  ] as const) {
    const { states, streams, running } = setup({
      openError: () => new HostApiError(status, status === 401 ? 'unauthorized' : 'not_found', 'no'),
    });
    await within(`the connection to give up on a ${status}`, running);
    assert.equal(states.at(-1), expected);
    assert.equal(streams.length, 0);
  }
});

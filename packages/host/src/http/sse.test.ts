import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { test } from 'node:test';
import { HostApiError, HostClient, readSseFrames, type SessionEvent, type SseFrame } from '@outrigger/host-api';
import type { EventStream } from '../events/eventStream.ts';
import { createMemoryLogger } from '../logging/hostLogger.ts';
import { createHostApp } from './hostApp.ts';
import { listenHost } from './httpServer.ts';
import { FakeHostService } from './testing/fakeHostService.ts';

const TOKEN = 'sse-test-token-0123456789abcdefghijklmnopqrstuv';

async function startServer(service: FakeHostService, heartbeatMs = 60_000) {
  const listening = await listenHost('127.0.0.1', 0, (port) =>
    createHostApp({
      service,
      logger: createMemoryLogger(),
      security: { token: () => TOKEN, port, boundHost: '127.0.0.1' },
      heartbeatMs,
      validateResponses: true,
    }),
  );
  const client = new HostClient({ baseUrl: `http://127.0.0.1:${listening.port}`, token: TOKEN });
  return { ...listening, client, [Symbol.asyncDispose]: () => listening.close(100) };
}

type Draft = Parameters<FakeHostService['publish']>[1];

function textEvent(index: number, size = 8): Draft {
  const delta = `${index}:`.padEnd(size, '.');
  return {
    type: 'text',
    data: { session_id: 's1', turnId: 't1', messageId: 'm1', delta, final: false, interrupted: false },
  };
}

async function readUntil(frames: AsyncIterable<SseFrame>, done: (frame: SseFrame) => boolean): Promise<SseFrame[]> {
  const seen: SseFrame[] = [];
  for await (const frame of frames) {
    seen.push(frame);
    if (done(frame)) break;
  }
  return seen;
}

async function eventually(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('frames carry id = seq, the type and one JSON object; Last-Event-ID wins over ?after and replays exactly the rest', async () => {
  const service = new FakeHostService();
  service.addSession('s1');
  for (let index = 1; index <= 5; index += 1) service.publish('s1', textEvent(index));
  await using server = await startServer(service);

  const response = await fetch(`http://127.0.0.1:${server.port}/api/sessions/s1/events?after=1`, {
    headers: { authorization: `Bearer ${TOKEN}`, 'last-event-id': '3' },
  });
  assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  assert.equal(response.headers.get('cache-control'), 'no-cache, no-store, no-transform');
  const reader = response.body!.getReader();
  let raw = '';
  while (!raw.includes('id: 5\n')) raw += new TextDecoder().decode((await reader.read()).value);
  await reader.cancel();
  assert.match(raw, /^retry: 1000\n\nid: 4\nevent: text\ndata: \{"session_id":"s1",[^\n]*"seq":4\}\n\nid: 5\n/);

  const afterTwo = server.client.stream('sessionEvents', { params: { id: 's1' } });
  const live = readUntil(afterTwo, (frame) => frame.id === '7');
  service.publish('s1', textEvent(6));
  service.publish('s1', textEvent(7));
  const frames = await live;
  assert.deepEqual(
    frames.map((frame) => frame.id),
    ['1', '2', '3', '4', '5', '6', '7'],
  );
  assert.deepEqual(frames[6]?.data, { ...textEvent(7).data, seq: 7 });
  const viaQuery = await fetch(`http://127.0.0.1:${server.port}/api/sessions/s1/events?after=6`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const first = await readUntil(readSseFrames(viaQuery.body!), () => true);
  assert.equal(first[0]?.id, '7');
});

test('heartbeats are real events without an id, at the configured period', async () => {
  const service = new FakeHostService();
  service.addSession('s1');
  await using server = await startServer(service, 30);
  const started = Date.now();
  const frames = await readUntil(
    server.client.stream('hostEvents'),
    (() => {
      let beats = 0;
      return (frame: SseFrame) => frame.event === 'heartbeat' && ++beats === 3;
    })(),
  );
  assert.equal(frames.length, 3);
  for (const frame of frames) {
    assert.equal(frame.id, undefined);
    assert.equal(typeof (frame.data as { time: number }).time, 'number');
  }
  assert.ok(Date.now() - started >= 60);
});

test('a client that goes away closes its hub stream; an unknown session is a JSON 404 before any stream', async () => {
  const service = new FakeHostService();
  service.addSession('s1');
  await using server = await startServer(service);
  const controller = new AbortController();
  const frames = server.client.stream('sessionEvents', { params: { id: 's1' }, signal: controller.signal });
  const reading = readUntil(frames, () => false).catch(() => []);
  await eventually(() => service.sessionLogs.get('s1')?.openStreams === 1, 'the stream to open');
  controller.abort();
  await reading;
  await eventually(() => service.sessionLogs.get('s1')?.openStreams === 0, 'the hub stream to close');

  await assert.rejects(
    readUntil(server.client.stream('sessionEvents', { params: { id: 'nope' } }), () => true),
    (error: unknown) => error instanceof HostApiError && error.status === 404 && error.code === 'not_found',
  );
  const badId = await fetch(`http://127.0.0.1:${server.port}/api/sessions/s1/events`, {
    headers: { authorization: `Bearer ${TOKEN}`, 'last-event-id': 'abc' },
  });
  assert.equal(badId.status, 400);
});

test('a slow client is cut without delaying a fast one, and catches up exactly on reconnect', async () => {
  const service = new FakeHostService({ bufferLimit: 200 });
  service.addSession('s1');
  const cut: Promise<string>[] = [];
  const open = service.openSessionStream.bind(service);
  service.openSessionStream = (sessionId, afterSeq): EventStream<SessionEvent> => {
    const stream = open(sessionId, afterSeq);
    cut.push(stream.ended);
    return stream;
  };
  await using server = await startServer(service);
  const total = 6000;

  // The slow client: reads the headers, then nothing.
  const slowBytes: Buffer[] = [];
  let slowSocketClosed = false;
  const slow = await new Promise<import('node:http').IncomingMessage>((resolve) => {
    const request = httpRequest(
      `http://127.0.0.1:${server.port}/api/sessions/s1/events`,
      { headers: { authorization: `Bearer ${TOKEN}` } },
      resolve,
    );
    request.on('error', () => undefined);
    request.end();
  });
  slow.pause();
  slow.on('data', (chunk: Buffer) => slowBytes.push(chunk));
  slow.on('error', () => undefined);
  slow.socket.on('close', () => {
    slowSocketClosed = true;
  });

  let fastLast = 0;
  const fast = readUntil(server.client.stream('sessionEvents', { params: { id: 's1' } }), (frame) => {
    fastLast = Number(frame.id);
    return frame.id === String(total);
  });
  await eventually(() => service.sessionLogs.get('s1')?.openStreams === 2, 'both streams to open');
  // The producer goes as fast as the fast client reads: it must never be held back by the slow one.
  for (let index = 1; index <= total; index += 1) {
    service.publish('s1', textEvent(index, 4096));
    if (index % 100 === 0) await eventually(() => fastLast === index, `the fast client to read ${index}`);
  }
  const fastFrames = await fast;
  assert.equal(fastFrames.length, total, 'the fast client got every event');
  assert.equal(await cut[0], 'slow_consumer');

  // The slow client now reads what reached it, then reconnects from its last id.
  slow.resume();
  await eventually(() => slowSocketClosed, 'the slow client’s connection to be cut');
  const received = await readUntil(
    readSseFrames(new Blob(slowBytes).stream() as ReadableStream<Uint8Array>),
    () => false,
  );
  const ids = received.map((frame) => Number(frame.id));
  assert.ok(ids.length < total, `the slow client was cut early (it had ${ids.length})`);
  const lastId = ids.at(-1) ?? 0;
  const rest = await readUntil(
    server.client.stream('sessionEvents', { params: { id: 's1' }, lastEventId: lastId }),
    (frame) => frame.id === String(total),
  );
  assert.deepEqual(
    [...ids, ...rest.map((frame) => Number(frame.id))],
    Array.from({ length: total }, (_, index) => index + 1),
  );
});

test('POST turns with Accept: text/event-stream streams that turn from `accepted` to its `done`, then ends', async () => {
  const service = new FakeHostService();
  service.addSession('s1');
  service.publish('s1', textEvent(1));
  await using server = await startServer(service);
  const response = await fetch(`http://127.0.0.1:${server.port}/api/sessions/s1/turns`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'hello' }),
  });
  assert.equal(response.status, 200);
  const frames: SseFrame[] = [];
  for await (const frame of readSseFrames(response.body!)) frames.push(frame);
  assert.deepEqual(
    frames.map((frame) => [frame.event, frame.id]),
    [
      ['accepted', undefined],
      ['turn_started', '2'],
      ['text', '3'],
      ['result', '4'],
      ['done', '5'],
    ],
  );
  assert.deepEqual(frames[0]?.data, { turnId: 't1', queued: false, steered: false, replayed: false });
  const invalid = await fetch(`http://127.0.0.1:${server.port}/api/sessions/s1/turns`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: '' }),
  });
  assert.equal(invalid.status, 400, 'a refused turn is a JSON error, not a stream');
});

test('closing the service ends every open stream', async () => {
  const service = new FakeHostService();
  service.addSession('s1');
  await using server = await startServer(service);
  const reading = readUntil(server.client.stream('hostEvents'), () => false);
  await eventually(() => service.hostLog.openStreams === 1, 'the stream to open');
  await service.close();
  assert.deepEqual(await reading, []);
});

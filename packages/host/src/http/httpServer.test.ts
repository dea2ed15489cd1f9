import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { HostClient, type SseFrame } from '@outrigger/host-api';
import { createMemoryLogger } from '../logging/hostLogger.ts';
import { createHostApp } from './hostApp.ts';
import { listenHost } from './httpServer.ts';
import { FakeHostService } from './testing/fakeHostService.ts';

const TOKEN = 'limits-test-token-0123456789abcdefghijklmnopqrstuv';
const IDLE_CONNECTIONS = 300;
const HEADERS_TIMEOUT_MS = 1000;

async function eventually(check: () => boolean, what: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

test('hundreds of idle or half-sent connections neither lock out a real client nor cut an SSE stream', async () => {
  const service = new FakeHostService();
  const listening = await listenHost(
    '127.0.0.1',
    0,
    (port) =>
      createHostApp({
        service,
        logger: createMemoryLogger(),
        // The provider form security.ts takes; the token never changes here.
        security: { token: () => TOKEN, port, boundHost: '127.0.0.1' },
        heartbeatMs: 100,
      }),
    { headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: HEADERS_TIMEOUT_MS },
  );
  const sockets: Socket[] = [];
  const closedByServer = new Set<Socket>();
  const controller = new AbortController();
  try {
    await Promise.all(
      Array.from(
        { length: IDLE_CONNECTIONS },
        (_, index) =>
          new Promise<void>((resolve, reject) => {
            const socket = connect(listening.port, '127.0.0.1', () => {
              // Half of them start a request and never finish its headers; the others send nothing at all.
              if (index % 2 === 0) socket.write(`GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:${listening.port}\r\n`);
              resolve();
            });
            socket.on('error', () => undefined);
            socket.on('close', () => closedByServer.add(socket));
            socket.once('error', reject);
            sockets.push(socket);
          }),
      ),
    );
    const client = new HostClient({ baseUrl: `http://127.0.0.1:${listening.port}`, token: TOKEN });
    assert.equal((await client.call('info')).version, service.info().version);

    const started = Date.now();
    const beats: number[] = [];
    const stream = (async () => {
      for await (const frame of client.stream('hostEvents', { signal: controller.signal }) as AsyncIterable<SseFrame>) {
        if (frame.event === 'heartbeat') beats.push(Date.now() - started);
      }
    })().catch((error: unknown) => {
      if (!controller.signal.aborted) throw error;
    });
    // Past two headers timeouts: the idle connections are gone, the stream (whose request was complete) is not.
    await eventually(
      () => closedByServer.size === IDLE_CONNECTIONS,
      `the server to drop all ${IDLE_CONNECTIONS} idle connections (dropped ${closedByServer.size})`,
      HEADERS_TIMEOUT_MS * 6,
    );
    await eventually(
      () => (beats.at(-1) ?? 0) > HEADERS_TIMEOUT_MS * 2,
      'a heartbeat after two headers timeouts',
      HEADERS_TIMEOUT_MS * 6,
    );
    assert.ok(beats.length >= 5, `the stream kept beating: ${beats.join(', ')}`);
    controller.abort();
    await stream;
    assert.equal((await client.call('info')).version, service.info().version);
  } finally {
    controller.abort();
    for (const socket of sockets) socket.destroy();
    await listening.close(100);
  }
});

test('connections beyond maxConnections are closed as they arrive, and the slots come back', async () => {
  const service = new FakeHostService();
  const listening = await listenHost(
    '127.0.0.1',
    0,
    (port) =>
      createHostApp({
        service,
        logger: createMemoryLogger(),
        security: { token: () => TOKEN, port, boundHost: '127.0.0.1' },
      }),
    { headersTimeoutMs: HEADERS_TIMEOUT_MS, maxConnections: 20 },
  );
  const sockets: Socket[] = [];
  try {
    const open = () =>
      new Promise<Socket>((resolve) => {
        const socket = connect(listening.port, '127.0.0.1', () => resolve(socket));
        socket.on('error', () => undefined);
        sockets.push(socket);
      });
    for (let index = 0; index < 20; index += 1) await open();
    const extra = await open();
    await new Promise<void>((resolve) => extra.once('close', () => resolve()));
    const client = new HostClient({ baseUrl: `http://127.0.0.1:${listening.port}`, token: TOKEN });
    // Once the headers timeout freed the idle slots, a real client gets in again.
    const deadline = Date.now() + HEADERS_TIMEOUT_MS * 6;
    for (;;) {
      try {
        assert.equal((await client.call('info')).version, service.info().version);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    for (const socket of sockets) socket.destroy();
    await listening.close(100);
  }
});

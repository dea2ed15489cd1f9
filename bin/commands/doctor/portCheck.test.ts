import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { test } from 'node:test';
import { getRequestListener } from '@hono/node-server';
import { createHostApp, type HostService, silentLogger } from '@outrigger/host';
import { askIsOutriggerHost, checkPort } from './portCheck.ts';

async function listening<T extends Server | ReturnType<typeof createHttpServer>>(server: T): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(typeof address === 'object' && address !== null);
  return address.port;
}

function closed(server: Server | ReturnType<typeof createHttpServer>): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

test('a free port passes, and is free again afterwards', async () => {
  const probe = createServer();
  const port = await listening(probe);
  await closed(probe);
  const result = await checkPort({ host: '127.0.0.1', port });
  assert.deepEqual(result, { name: 'port', status: 'ok', detail: `127.0.0.1:${port} is free` });
  const again = createServer();
  assert.equal(await listening(again).then(() => 'bound'), 'bound');
  await closed(again);
});

test('port 0 passes: any free port will do', async () => {
  const result = await checkPort({ host: '127.0.0.1', port: 0 });
  assert.equal(result.status, 'ok');
  assert.match(result.detail, /^127\.0\.0\.1: any free port \(\d+ is free now\)$/);
});

test('a port some other server holds fails, and it is said not to be an Outrigger host', async () => {
  const other = createServer((socket) => {
    // Reading the request too: a socket never read from would never see the client go, and close() would wait.
    socket.resume();
    socket.end('hello\n');
  });
  const port = await listening(other);
  try {
    const result = await checkPort({ host: '127.0.0.1', port });
    assert.equal(result.status, 'FAIL');
    assert.equal(
      result.detail,
      `127.0.0.1:${port} is in use, by something that is not an Outrigger host (pass --port N, or --port 0 for any free port)`,
    );
  } finally {
    await closed(other);
  }
});

test('a port an Outrigger host holds fails, saying so', async () => {
  // The host's own app: its guards refuse the token-less probe before any route, so no service is needed.
  let app: ReturnType<typeof createHostApp> | undefined;
  const server = createHttpServer((request, response) => {
    if (app !== undefined) void getRequestListener(app.fetch)(request, response);
  });
  const port = await listening(server);
  const security = { token: () => 'doctor-test-token', port, boundHost: '127.0.0.1' };
  app = createHostApp({ service: {} as HostService, security, logger: silentLogger });
  try {
    const result = await checkPort({ host: '127.0.0.1', port });
    assert.equal(result.status, 'FAIL');
    assert.match(
      result.detail,
      new RegExp(`^127\\.0\\.0\\.1:${port} is in use, an Outrigger host is already running there`),
    );
  } finally {
    await closed(server);
  }
});

test('an HTTP server that is not Outrigger is not taken for one', async () => {
  const web = createHttpServer((_request, response) => response.writeHead(401, { 'www-authenticate': 'Basic' }).end());
  const port = await listening(web);
  try {
    assert.equal(await askIsOutriggerHost({ host: '127.0.0.1', port, tls: false }), false);
  } finally {
    await closed(web);
  }
});

test('an address that is not this machine fails', async () => {
  // 192.0.2.0/24 is TEST-NET-1: never assigned to a real interface.
  const result = await checkPort({ host: '192.0.2.1', port: 7420 });
  assert.equal(result.status, 'FAIL');
  assert.match(result.detail, /192\.0\.2\.1 is not an address of this machine/);
});

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { HostClient } from '@outrigger/host-api';
import { PortInUseError } from './http/httpServer.ts';
import { FakeHostService } from './http/testing/fakeHostService.ts';
import { createFileAndStderrLogger } from './logging/hostLogger.ts';
import { startHost } from './serve.ts';

const CANARY_KEY = 'sk-ant-api03-SERVECANARY0123456789abcdefghijklmn';

async function withDataDir(run: (dataDir: string) => Promise<void>): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'outrigger-serve-'));
  try {
    await run(dataDir);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

function options(dataDir: string, service = new FakeHostService()) {
  return {
    dataDir,
    sidecarEnv: { ANTHROPIC_API_KEY: CANARY_KEY },
    modelBackend: { kind: 'demo' as const, reason: 'no credential was found' },
    createService: async () => service,
    logger: createFileAndStderrLogger({ dataDir, stderr: false, level: 'debug' }),
  };
}

test('startHost serves the API with the token file, a URL that carries it, and a log without secrets', async () => {
  await withDataDir(async (dataDir) => {
    const service = new FakeHostService();
    const host = await startHost({ ...options(dataDir, service), port: 0 });
    try {
      assert.match(host.url, new RegExp(`^http://127\\.0\\.0\\.1:${host.port}/\\?token=${host.token}$`));
      assert.equal((await stat(join(dataDir, 'token'))).mode & 0o777, 0o600);
      assert.equal((await stat(join(dataDir, 'workspace'))).isDirectory(), true);
      const client = new HostClient({ baseUrl: host.baseUrl, token: host.token });
      assert.equal((await client.call('info')).modelBackend, 'demo');
    } finally {
      await host.close();
    }
    assert.equal(service.closed, true, 'close() closes the core');
    const log = await readFile(join(dataDir, 'logs', 'host.log'), 'utf8');
    assert.match(log, /"event":"host\.started"/);
    assert.match(log, /"event":"host\.stopped"/);
    assert.ok(!log.includes(host.token), 'the token is not logged');
    assert.ok(!log.includes('SERVECANARY'), 'the API key is not logged');
  });
});

test('a taken port: the next one when falling back, a clear error otherwise', async () => {
  await withDataDir(async (dataDir) => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as { port: number }).port;
    try {
      const service = new FakeHostService();
      await assert.rejects(
        startHost({ ...options(dataDir, service), port: taken }),
        (error: unknown) => error instanceof PortInUseError && error.message.includes(String(taken)),
      );
      assert.equal(service.closed, true, 'the core built for a host that could not listen is closed');
      const host = await startHost({ ...options(dataDir), port: taken, portFallback: true });
      try {
        assert.notEqual(host.port, taken);
        assert.ok(host.port > taken && host.port < taken + 10);
      } finally {
        await host.close();
      }
    } finally {
      blocker.close();
    }
  });
});

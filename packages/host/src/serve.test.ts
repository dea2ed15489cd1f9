import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { type TestContext, test } from 'node:test';
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

/** Every entry under `root` (itself as '.'), relative to it, with its permission bits. */
async function modesUnder(root: string): Promise<Map<string, { mode: number; dir: boolean }>> {
  const modes = new Map<string, { mode: number; dir: boolean }>();
  const visit = async (path: string) => {
    const stats = await lstat(path);
    modes.set(relative(root, path) || '.', { mode: stats.mode & 0o777, dir: stats.isDirectory() });
    if (stats.isDirectory()) for (const name of await readdir(path)) await visit(join(path, name));
  };
  await visit(root);
  return modes;
}

/** The whole tree: directories exactly 0700, files without a bit for group or others. */
function assertPrivate(modes: Map<string, { mode: number; dir: boolean }>): void {
  for (const [path, { mode, dir }] of modes) {
    if (dir) assert.equal(mode, 0o700, `directory ${path} is ${mode.toString(8)}`);
    else assert.equal(mode & 0o077, 0, `file ${path} is ${mode.toString(8)}: readable by others`);
  }
}

/** The umask most systems start users with, which is what let the database out as 0644. */
async function withUmask<T>(mask: number, run: () => Promise<T>): Promise<T> {
  const previous = process.umask(mask);
  try {
    return await run();
  } finally {
    process.umask(previous);
  }
}

/** The real core (SQLite, so host.db, -wal and -shm exist), no sidecar until a turn needs one. */
function realCoreOptions(dataDir: string) {
  return {
    dataDir,
    sidecarEnv: {},
    modelBackend: { kind: 'demo' as const, reason: 'test' },
    logger: createFileAndStderrLogger({ dataDir, stderr: false, level: 'info' }),
    port: 0,
  };
}

test('a fresh data directory comes out owner-only: 0700 directories, 0600 database (with -wal/-shm), log and token', async () => {
  await withDataDir(async (parent) => {
    const dataDir = join(parent, 'nested', 'data');
    await withUmask(0o022, async () => {
      const host = await startHost(realCoreOptions(dataDir));
      try {
        const modes = await modesUnder(dataDir);
        for (const file of ['host.db', 'host.db-wal', 'host.db-shm', 'token', 'logs/host.log']) {
          assert.equal(modes.get(file)?.mode, 0o600, `${file}: ${modes.get(file)?.mode.toString(8)}`);
        }
        for (const dir of ['.', 'logs', 'workspace']) assert.equal(modes.get(dir)?.mode, 0o700, dir);
        assertPrivate(modes);
        assert.equal(host.privacy.dirWasOpen, false);
      } finally {
        await host.close();
      }
    });
  });
});

test('an existing 0755 data directory with 0644 files is narrowed at start, and the log says so', async () => {
  await withDataDir(async (parent) => {
    const dataDir = join(parent, 'data');
    await withUmask(0o022, async () => {
      // A first run leaves a real database; then everything is opened up as an older version left it.
      await (await startHost(realCoreOptions(dataDir))).close();
      await writeFile(join(dataDir, 'host.db-wal'), '', { flag: 'a' });
      await writeFile(join(dataDir, 'host.db-shm'), '', { flag: 'a' });
      await mkdir(join(dataDir, 'demo-claude', 'config'), { recursive: true });
      await writeFile(join(dataDir, 'demo-claude', 'config', 'history.jsonl'), '{"prompt":"secret"}\n');
      for (const [path, { dir }] of await modesUnder(dataDir)) await chmod(join(dataDir, path), dir ? 0o755 : 0o644);
      assert.equal((await stat(dataDir)).mode & 0o777, 0o755, 'the precondition: an open directory');
      const host = await startHost(realCoreOptions(dataDir));
      try {
        assert.equal(host.privacy.dirWasOpen, true);
        const modes = await modesUnder(dataDir);
        for (const file of ['host.db', 'host.db-wal', 'host.db-shm', 'token', 'logs/host.log']) {
          assert.equal(modes.get(file)?.mode, 0o600, `${file}: ${modes.get(file)?.mode.toString(8)}`);
        }
        assert.equal(modes.get('demo-claude/config/history.jsonl')?.mode, 0o600);
        for (const dir of ['.', 'logs', 'workspace', 'demo-claude', 'demo-claude/config']) {
          assert.equal(modes.get(dir)?.mode, 0o700, dir);
        }
        assertPrivate(modes);
      } finally {
        await host.close();
      }
      const log = await readFile(join(dataDir, 'logs', 'host.log'), 'utf8');
      assert.match(
        log,
        /"reason":"the data directory was open to other users and has been narrowed to 0700".*"event":"host\.data_dir_narrowed"/,
      );
    });
  });
});

test('a non-loopback address is refused without TLS or --insecure-remote, before the token or database is made', async () => {
  await withDataDir(async (parent) => {
    const dataDir = join(parent, 'data');
    for (const host of ['0.0.0.0', '::', '192.168.1.10']) {
      const hostOptions = { ...options(join(parent, 'logs-only')), dataDir, host, port: 0 };
      await assert.rejects(startHost(hostOptions), (error: Error) => {
        assert.match(error.message, /clear text/);
        assert.match(error.message, /--tls-cert FILE --tls-key FILE/);
        assert.match(error.message, /--insecure-remote/);
        assert.match(error.message, /ssh -L 7420:127\.0\.0\.1:7420/);
        return true;
      });
      hostOptions.logger.close();
    }
    await assert.rejects(stat(dataDir), { code: 'ENOENT' });
  });
});

test('--insecure-remote: a wildcard address is served over HTTP, with a warning in the log', async () => {
  await withDataDir(async (dataDir) => {
    const host = await startHost({ ...options(dataDir), host: '0.0.0.0', insecureRemote: true, port: 0 });
    try {
      assert.match(host.baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
      const client = new HostClient({ baseUrl: host.baseUrl, token: host.token });
      assert.equal((await client.call('info')).modelBackend, 'demo');
    } finally {
      await host.close();
    }
    const log = await readFile(join(dataDir, 'logs', 'host.log'), 'utf8');
    assert.match(log, /"level":"warn".*clear text.*"event":"host\.insecure_remote"/);
  });
});

/** A self-signed certificate for localhost and 127.0.0.1, or undefined (with the reason) without openssl. */
async function selfSignedCertificate(dir: string): Promise<{ certFile: string; keyFile: string } | string> {
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-subj',
          '/CN=localhost',
          '-addext',
          'subjectAltName=DNS:localhost,IP:127.0.0.1',
          '-days',
          '1',
          '-keyout',
          keyFile,
          '-out',
          certFile,
        ],
        (error) => (error === null ? resolve() : reject(error)),
      );
    });
  } catch (error) {
    return `openssl could not make a test certificate (${(error as Error).message.split('\n')[0]})`;
  }
  return { certFile, keyFile };
}

test('with --tls-cert/--tls-key the host serves HTTPS (on loopback too) and prints an https URL', async (t: TestContext) => {
  await withDataDir(async (dataDir) => {
    const tls = await selfSignedCertificate(dataDir);
    if (typeof tls === 'string') return t.skip(tls);
    const host = await startHost({ ...options(dataDir), tls, port: 0 });
    try {
      assert.match(host.url, new RegExp(`^https://127\\.0\\.0\\.1:${host.port}/\\?token=`));
      const ca = await readFile(tls.certFile);
      const get = (token: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const request = httpsRequest(
            {
              host: '127.0.0.1',
              port: host.port,
              path: '/api/info',
              ca,
              headers: { authorization: `Bearer ${token}` },
            },
            (response) => {
              let body = '';
              response.setEncoding('utf8');
              response.on('data', (chunk: string) => {
                body += chunk;
              });
              response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
            },
          );
          request.on('error', reject);
          request.end();
        });
      const answer = await get(host.token);
      assert.equal(answer.status, 200);
      assert.equal((JSON.parse(answer.body) as { modelBackend: string }).modelBackend, 'demo');
      assert.equal((await get('wrong-token')).status, 401);
      // Plain HTTP on the TLS port gets no API answer.
      await assert.rejects(fetch(`http://127.0.0.1:${host.port}/api/info`, { signal: AbortSignal.timeout(5000) }));
    } finally {
      await host.close();
    }
  });
});

test('a TLS start with a missing key file names the file', async () => {
  await withDataDir(async (dataDir) => {
    const tls = { certFile: join(dataDir, 'nope.pem'), keyFile: join(dataDir, 'nokey.pem') };
    await assert.rejects(startHost({ ...options(dataDir), tls, port: 0 }), /--tls-cert .*nope\.pem: ENOENT/);
  });
});

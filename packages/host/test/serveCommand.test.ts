import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertNoProcessesLeft, killMarkedProcesses } from './harness/processes.ts';
import { spawnServe } from './harness/serveChild.ts';
import { isDoneOf, readEventsUntil } from './harness/sseReader.ts';

/*
 * `outrigger serve` as a person runs it (what `npm start` runs): no credential in the environment, so it
 * starts the demo model and says so; the printed URL works; a turn runs through the real sidecar and Claude
 * Code; SIGTERM stops it cleanly with nothing left running.
 */

test('outrigger serve without a credential: the demo model, a URL that works, a turn, a clean stop', async () => {
  const root = await mkdtemp(join(tmpdir(), 'outrigger-serve-cli-'));
  const mark = randomUUID();
  try {
    const serve = await spawnServe({
      args: ['--port', '0', '--data-dir', join(root, 'data')],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root },
      mark,
    });
    assert.match(serve.output(), /DEMO MODEL/);
    assert.match(serve.url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    assert.equal((await stat(join(root, 'data', 'token'))).mode & 0o777, 0o600);
    const info = await serve.client.call('info');
    assert.equal(info.modelBackend, 'demo');
    assert.match(info.modelBackendReason, /no Anthropic credential/i);

    const { id } = await serve.client.call('createSession', { body: { cwd: info.defaultCwd } });
    const { turnId } = await serve.client.call('postTurn', { params: { id }, body: { prompt: 'show me markdown' } });
    const frames = await readEventsUntil(serve.client, id, isDoneOf(turnId));
    assert.equal((frames.at(-1)?.data as { outcome?: string } | undefined)?.outcome, 'completed');

    assert.equal(await serve.stop('SIGTERM'), 0);
    assert.match(serve.output(), /Stopped\./);
    await assertNoProcessesLeft(mark);
  } finally {
    killMarkedProcesses(mark);
    await rm(root, { recursive: true, force: true });
  }
});

test('Ctrl-C (SIGINT) stops outrigger serve cleanly; the token of the first start is kept by the next', async () => {
  const root = await mkdtemp(join(tmpdir(), 'outrigger-serve-cli-'));
  const mark = randomUUID();
  const start = () =>
    spawnServe({
      args: ['--port', '0', '--data-dir', join(root, 'data')],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' },
      mark,
    });
  try {
    const first = await start();
    assert.doesNotMatch(first.output(), /DEMO MODEL/, 'a credential variable selects Claude, not the demo');
    const info = await first.client.call('info');
    assert.equal(info.modelBackend, 'anthropic');
    assert.match(info.modelBackendReason, /ANTHROPIC_BASE_URL is set in the environment/, 'says why');
    assert.equal(await first.stop('SIGINT'), 0);
    const second = await start();
    assert.equal(second.token, first.token);
    assert.equal(await second.stop('SIGINT'), 0);
    await assertNoProcessesLeft(mark);
  } finally {
    killMarkedProcesses(mark);
    await rm(root, { recursive: true, force: true });
  }
});

test('a terminal that went away (its pipes closed) neither keeps serve from stopping nor floods the log', async () => {
  const root = await mkdtemp(join(tmpdir(), 'outrigger-serve-cli-'));
  const mark = randomUUID();
  try {
    const serve = await spawnServe({
      args: ['--port', '0', '--data-dir', join(root, 'data')],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' },
      mark,
    });
    // As `npm start | tee` after Ctrl-C: the reader of its stdout and stderr is gone, so every write fails (EPIPE).
    serve.child.stdout?.destroy();
    serve.child.stderr?.destroy();
    const stopped = await Promise.race([
      serve.stop('SIGINT'),
      new Promise((resolve) => setTimeout(() => resolve('still running after 20 s'), 20_000)),
    ]);
    if (stopped === 'still running after 20 s') serve.child.kill('SIGKILL');
    assert.equal(stopped, 0);
    const log = await readFile(join(root, 'data', 'logs', 'host.log'), 'utf8');
    assert.doesNotMatch(log, /uncaught_exception/, 'a failed terminal write is not an error of the host');
    await assertNoProcessesLeft(mark);
  } finally {
    killMarkedProcesses(mark);
    await rm(root, { recursive: true, force: true });
  }
});

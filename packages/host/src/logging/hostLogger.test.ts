import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createFileAndStderrLogger, createMemoryLogger } from './hostLogger.ts';
import { redactSecrets } from './logFields.ts';
import { pinoShaped } from './pinoShaped.ts';

const CANARY_PROMPT = 'CANARY-PROMPT-7f3a please delete everything';
const CANARY_KEY = 'sk-ant-api03-CANARYKEY0123456789abcdefghijklmnop';
const HOST_TOKEN = 'q0Zc9kq2Vd1mN8pX4rT6yW3eA5sB7uF0hJ2kL4nP6rS';

test('a record keeps only allow-listed fields and names the dropped ones', () => {
  const logger = createMemoryLogger();
  logger.info('turn.posted', {
    sessionId: 's1',
    status: 202,
    ...({ prompt: CANARY_PROMPT, toolInput: { command: CANARY_PROMPT } } as object),
  });
  const [record] = logger.records();
  assert.equal(record?.event, 'turn.posted');
  assert.equal(record?.level, 'info');
  assert.equal(record?.sessionId, 's1');
  assert.deepEqual(record?.droppedFields, ['prompt', 'toolInput']);
  assert.ok(!logger.lines.join('').includes('CANARY-PROMPT'));
});

test('secret-looking strings are redacted in every allowed field, known secrets wherever they appear', () => {
  const logger = createMemoryLogger({ secrets: [HOST_TOKEN] });
  logger.warn('sidecar.exited', {
    stderrTail: `auth failed for ${CANARY_KEY}; Authorization: Bearer ${HOST_TOKEN}`,
    reason: `ANTHROPIC_API_KEY=${CANARY_KEY.slice(7)} url=http://127.0.0.1:1/?token=${HOST_TOKEN}`,
    diagnostic: { apiKey: 'plain-value', stage: 'interrupt', nested: { authorization: 'x' } },
  });
  const text = logger.lines.join('');
  assert.ok(!text.includes('CANARYKEY'), text);
  assert.ok(!text.includes(HOST_TOKEN), text);
  assert.ok(!text.includes('plain-value'), text);
  const [record] = logger.records();
  assert.deepEqual(record?.diagnostic, {
    apiKey: '[redacted]',
    stage: 'interrupt',
    nested: { authorization: '[redacted]' },
  });
});

test('ids, paths and ordinary words survive redaction', () => {
  const id = '3f0c2a4e-9b1d-4c7e-8a55-0d2f6b7c9e11';
  assert.equal(
    redactSecrets(`session ${id} at /work/wt/host/packages/host/src/serve.ts:12`),
    `session ${id} at /work/wt/host/packages/host/src/serve.ts:12`,
  );
  assert.equal(redactSecrets('Bearer abc.def'), 'Bearer [redacted]');
  assert.equal(redactSecrets('token: abc'), 'token: [redacted]');
});

test('the log file rotates by size and keeps the configured number of older files', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'outrigger-log-'));
  try {
    const logger = createFileAndStderrLogger({ dataDir, stderr: false, maxFileBytes: 400, keepFiles: 2 });
    for (let index = 0; index < 40; index += 1) logger.info('bench.tick', { count: index });
    logger.close();
    const files = (await readdir(join(dataDir, 'logs'))).sort();
    assert.deepEqual(files, ['host.1.log', 'host.2.log', 'host.log']);
    for (const file of files) assert.ok((await stat(join(dataDir, 'logs', file))).size <= 400);
    assert.equal((await stat(join(dataDir, 'logs', 'host.log'))).mode & 0o777, 0o600);
    const newest = (await readFile(join(dataDir, 'logs', 'host.log'), 'utf8')).trim().split('\n');
    assert.equal(JSON.parse(newest.at(-1) ?? '{}').count, 39);
    // A restart appends to the live file instead of starting a new one.
    const again = createFileAndStderrLogger({ dataDir, stderr: false, maxFileBytes: 400, keepFiles: 2 });
    again.info('host.started', { port: 1 });
    again.close();
    assert.match(await readFile(join(dataDir, 'logs', 'host.log'), 'utf8'), /host\.started/);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('the pino-shaped view names the record by its event field and keeps the fixed message', () => {
  const logger = createMemoryLogger();
  const runtime = pinoShaped(logger);
  runtime.warn({ event: 'sidecar.exited', sidecarPid: 42, prompt: CANARY_PROMPT }, 'sidecar exited unexpectedly');
  runtime.info({ sessionId: 's1' }, 'session.opened');
  assert.deepEqual(
    logger.records().map(({ time: _time, ...record }) => record),
    [
      {
        level: 'warn',
        event: 'sidecar.exited',
        sidecarPid: 42,
        msg: 'sidecar exited unexpectedly',
        droppedFields: ['prompt'],
      },
      { level: 'info', event: 'session.opened', sessionId: 's1' },
    ],
  );
});

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SessionSdkCall, SessionSdkReply } from '../src/fork/sessionSdkWorker.ts';
import {
  builtSidecarState,
  SIDECAR_BUILD_INFO,
  SIDECAR_BUILT_ENTRY,
  type SidecarBuildInfo,
} from '../src/process/sidecarEntry.ts';
import { testDriverEnv } from '../src/testing/testDriverEnv.ts';
import { buildSidecar, EXTERNAL_PACKAGES } from './build.ts';

const SDK = '@anthropic-ai/claude-agent-sdk';

test('the build writes one ESM bundle that leaves only Node built-ins and the SDK to Node, the SDK imported lazily', async () => {
  const built = await buildSidecar();
  assert.equal(built.entry, SIDECAR_BUILT_ENTRY);
  assert.deepEqual(EXTERNAL_PACKAGES, [SDK]);
  const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
  const foreign = built.imports.filter((entry) => !builtins.has(entry.path));
  assert.deepEqual(
    foreign.map(({ path, kind }) => ({ path, kind })),
    [{ path: SDK, kind: 'dynamic-import' }],
    'the SDK is never imported statically: a test-driver sidecar must not load it',
  );
  assert.deepEqual(await builtSidecarState(), { fresh: true, entry: SIDECAR_BUILT_ENTRY });
});

test('the session-reader worker is built beside the entry and answers from its own config dir', async () => {
  await buildSidecar();
  const configDir = await mkdtemp(join(tmpdir(), 'sidecar-worker-'));
  const worker = new Worker(join(dirname(SIDECAR_BUILT_ENTRY), 'sessionSdkWorker.js'), {
    env: { ...process.env, CLAUDE_CONFIG_DIR: configDir },
  });
  try {
    const reply = once(worker, 'message') as Promise<[SessionSdkReply]>;
    worker.postMessage({
      id: 1,
      method: 'getSessionInfo',
      args: ['00000000-0000-4000-8000-000000000000', { dir: configDir }],
    } satisfies SessionSdkCall);
    const [answer] = await reply;
    assert.deepEqual(answer, { id: 1, ok: true, value: undefined });
  } finally {
    await worker.terminate();
    await rm(configDir, { recursive: true, force: true });
  }
});

test('the built entry turns on the compile cache beside the bundle before it runs it', async () => {
  await buildSidecar();
  const cache = join(dirname(SIDECAR_BUILT_ENTRY), '.compile-cache');
  assert.deepEqual(await readdir(cache).catch(() => []), [], 'a build starts without a cache');
  const sidecar = spawn(process.execPath, [SIDECAR_BUILT_ENTRY], {
    env: testDriverEnv(),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  sidecar.stdin.end(
    `${JSON.stringify({ version: 10, id: 'close', type: 'close', payload: { agentSessionId: 'none' } })}\n`,
  );
  const [answer] = (await once(sidecar.stdout, 'data', { signal: AbortSignal.timeout(10_000) })) as [Buffer];
  assert.match(answer.toString('utf8'), /"id":"close","type":"ok"/);
  const [code] = await once(sidecar, 'exit', { signal: AbortSignal.timeout(10_000) });
  assert.equal(code, 0);
  assert.notDeepEqual(await readdir(cache), [], 'the run left the compiled bundle in the cache');
});

test('`npm run build` leaves a fresh build and its compile cache alone, rebuilds with --force, and counts the lockfile', async () => {
  await buildSidecar();
  const info = JSON.parse(await readFile(SIDECAR_BUILD_INFO, 'utf8')) as SidecarBuildInfo;
  assert.ok(info.inputs.includes('../../package-lock.json'), 'an install that changes a bundled package is a change');
  const run = async (...args: string[]): Promise<string> => {
    const script = spawn(process.execPath, [fileURLToPath(new URL('./build.ts', import.meta.url)), ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    script.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const [code] = await once(script, 'exit', { signal: AbortSignal.timeout(60_000) });
    assert.equal(code, 0);
    return output;
  };
  assert.match(await run(), /^the sidecar is up to date/);
  assert.equal(await readFile(SIDECAR_BUILD_INFO, 'utf8'), `${JSON.stringify(info, null, 2)}\n`, 'nothing rebuilt');
  assert.match(await run('--force'), /^built .*dist\/main\.js/);
  const rebuilt = JSON.parse(await readFile(SIDECAR_BUILD_INFO, 'utf8')) as SidecarBuildInfo;
  assert.ok(rebuilt.startedAtMs > info.startedAtMs);
});

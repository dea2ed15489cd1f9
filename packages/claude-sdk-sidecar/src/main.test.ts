import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { before, test } from 'node:test';
import { SIDECAR_BUILT_ENTRY, SIDECAR_SOURCE_ENTRY } from './process/sidecarEntry.ts';
import { ensureSidecarBuilt } from './testing/ensureSidecarBuilt.ts';
import { testDriverEnv } from './testing/testDriverEnv.ts';

const WAIT_MS = 10_000;
const DRIVER_ENV = testDriverEnv();

before(() => ensureSidecarBuilt());

for (const entry of [SIDECAR_BUILT_ENTRY, SIDECAR_SOURCE_ENTRY]) {
  test(`${entry.endsWith('.ts') ? 'source' : 'built'}: a host that stops reading makes the sidecar close its sessions and exit 0, not crash on EPIPE`, async () => {
    const child = spawn(process.execPath, [entry], { env: DRIVER_ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr += chunk;
      });
      child.stdin.write(
        `${JSON.stringify({ version: 10, id: 'start', type: 'start', payload: { agentSessionId: 's', cwd: '/tmp' } })}\n`,
      );
      const [first] = (await once(child.stdout, 'data', { signal: AbortSignal.timeout(WAIT_MS) })) as [Buffer];
      assert.match(first.toString('utf8'), /"session_started"/);
      // The host's end of the sidecar's stdout goes away, as when the host dies without closing stdin.
      child.stdout.destroy();
      child.stdin.write(
        `${JSON.stringify({ version: 10, id: 'exec', type: 'exec', payload: { agentSessionId: 's', turnId: 't', prompt: 'hi' } })}\n`,
      );
      const [code, signal] = await once(child, 'exit', { signal: AbortSignal.timeout(WAIT_MS) });
      assert.deepEqual({ code, signal }, { code: 0, signal: null }, `stderr:\n${stderr}`);
      assert.doesNotMatch(stderr, /EPIPE/);
    } finally {
      child.kill('SIGKILL');
    }
  });
}

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readlinkSync, realpathSync } from 'node:fs';
import { test } from 'node:test';
import { type MockRule, startMockAnthropic } from '@outrigger/mock-anthropic';
import { createClaudeTestHome } from '@outrigger/mock-anthropic/testing';
import type { InspectForkCheckpointsResult, StartResult } from '@outrigger/protocol';
import { spawnSidecar } from '../src/testing/spawnSidecar.ts';
import { isTerminalOf } from '../src/testing/turnEvents.ts';

/*
 * The built entry is documented to run on Node 20 and later, below the repo's own Node: a host may start
 * `node dist/main.js` with whatever Node it has. This runs it on the system's Node 20 for a real session
 * (start, one turn of the real Claude Code against mock-anthropic, the session-reader worker of the stateless
 * reads, close), so an API newer than Node 20 anywhere on those paths fails here rather than in a host.
 */

const SYSTEM_NODE = '/usr/bin/node';
const SESSION = 'node20-session';
const PROMPT = 'NODE20 say hello';
const ANSWER = 'Hello from the scripted model on Node 20.';

function systemNodeMajor(): number | undefined {
  if (!existsSync(SYSTEM_NODE)) return undefined;
  try {
    return Number(execFileSync(SYSTEM_NODE, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }));
  } catch {
    return undefined;
  }
}

const major = systemNodeMajor();
const skip =
  major === undefined
    ? `${SYSTEM_NODE} is missing or does not run`
    : major < 20 || major > 21
      ? `${SYSTEM_NODE} is Node ${major}, not 20 or 21`
      : false;

const rules: MockRule[] = [
  (request) => (request.lastUserText.includes(PROMPT) ? { content: [{ type: 'text', text: ANSWER }] } : undefined),
];

test('the built entry runs a real session on Node 20: start, a turn, a stateless read, close', { skip }, async () => {
  const mock = await startMockAnthropic({ rules });
  const home = await createClaudeTestHome({ baseUrl: mock.url, env: { IS_SANDBOX: '1' } });
  const sidecar = await spawnSidecar({ env: home.env, cwd: home.cwd, node: SYSTEM_NODE, requestTimeoutMs: 60_000 });
  try {
    if (existsSync('/proc/self/exe')) {
      assert.equal(readlinkSync(`/proc/${sidecar.pid}/exe`), realpathSync(SYSTEM_NODE), 'the sidecar runs on it');
    }
    const started = await sidecar.request<StartResult>('start', { agentSessionId: SESSION, cwd: home.cwd });
    assert.ok(sidecar.events.some((event) => event.type === 'session_started'));

    const turnId = 'node20-turn';
    await sidecar.request('exec', { agentSessionId: SESSION, turnId, prompt: PROMPT });
    const terminal = await sidecar.waitForEvent(isTerminalOf(turnId), {
      timeoutMs: 60_000,
      description: 'the terminal event of the Node 20 turn',
    });
    assert.equal(terminal.type, 'turn_completed', JSON.stringify(terminal.payload));
    const answers = sidecar.events.flatMap((event) =>
      event.type === 'assistant_completed' && event.payload.turnId === turnId ? [event.payload.content] : [],
    );
    assert.deepEqual(answers, [ANSWER]);
    const identity = sidecar.events.find(
      (event) => event.type === 'provider_turn_identity_resolved' && event.payload.turnId === turnId,
    );
    assert.ok(identity?.type === 'provider_turn_identity_resolved');

    // The stateless reads run the SDK's session APIs in the worker (dist/sessionSdkWorker.js).
    const checkpoints = await sidecar.request<InspectForkCheckpointsResult>('inspect_fork_checkpoints', {
      providerSessionId: started.providerSessionId,
      cwd: home.cwd,
    });
    assert.deepEqual(checkpoints.providerTurnIds, [identity.payload.providerTurnId]);

    await sidecar.request('close', { agentSessionId: SESSION });
    assert.deepEqual(sidecar.protocolErrors, []);
    assert.deepEqual(mock.unmatched, []);
    assert.deepEqual(await sidecar.stop(), { code: 0, signal: null }, sidecar.stderrTail());
    assert.equal(sidecar.stderrTail(), '', 'Node 20 printed no warning or error');
  } finally {
    await sidecar.stop();
    await mock.close();
    await home.cleanup();
  }
});

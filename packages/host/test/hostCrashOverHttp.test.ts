import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pollUntil } from '@outrigger/claude-sdk-sidecar/testing';
import { HostApiError, type SseFrame } from '@outrigger/host-api';
import { startMockAnthropic } from '@outrigger/mock-anthropic';
import { createClaudeTestHome } from '@outrigger/mock-anthropic/testing';
import { bashCall, caseScripts, text } from '../src/sessions/testing/scriptedModel.ts';
import {
  assertNoProcessesLeft,
  killMarkedProcesses,
  markedProcesses,
  markedProcessesRunning,
} from './harness/processes.ts';
import { modelRequestsWith } from './harness/scenarios.ts';
import { type ServeChild, spawnServe } from './harness/serveChild.ts';
import { isDoneOf, readEventsUntil, runTurnToDone } from './harness/sseReader.ts';

/*
 * `outrigger serve` killed with SIGKILL in the middle of a turn (and of an approval), then started again
 * on the same data directory: nothing committed is lost, the turn is interrupted with one done, the
 * approval is superseded, and the session continues where Claude left it.
 */

const dataOf = <T = Record<string, unknown>>(frame: SseFrame | undefined) => frame?.data as T;
const SLOW_TOOL = 'python3 -c "import time; time.sleep(60)"';

const slowTools = (mark: string) => markedProcessesRunning(mark, 'time.sleep(60)');
const sidecars = (mark: string) => markedProcessesRunning(mark, 'claude-sdk-sidecar');

test('host SIGKILLed mid-turn and restarted: nothing committed lost, turn interrupted, session continues', async () => {
  const cases = caseScripts();
  const mock = await startMockAnthropic({ rules: [cases.rule] });
  const home = await createClaudeTestHome({ baseUrl: mock.url });
  const dataDir = await mkdtemp(join(tmpdir(), 'outrigger-crash-'));
  const mark = randomUUID();
  const serve = () => spawnServe({ args: ['--port', '0', '--data-dir', dataDir], env: home.env, mark });
  let host: ServeChild | undefined;
  try {
    host = await serve();
    const working = (await host.client.call('createSession', { body: { cwd: home.cwd, title: 'working' } })).id;
    const asking = (await host.client.call('createSession', { body: { cwd: home.cwd, title: 'asking' } })).id;
    const rememberPrompt = cases.prompt('remember the bird KESTREL', { prompt: text('Remembered KESTREL.') });
    const remembered = (await runTurnToDone(host.client, working, rememberPrompt)).turnId;

    // One turn runs a long tool, another waits for an approval, when the host is killed.
    const { turnId: cut } = await host.client.call('postTurn', {
      params: { id: working },
      body: { prompt: cases.prompt('run a long tool', { prompt: bashCall(SLOW_TOOL) }) },
    });
    const toolAsked = await readEventsUntil(host.client, working, (frame) => frame.event === 'permission_request');
    await host.client.call('answerInteraction', {
      params: {
        id: working,
        requestId: dataOf<{ interaction: { requestId: string } }>(toolAsked.at(-1)).interaction.requestId,
      },
      body: { action: 'allow', optionId: 'allow', payload: {} },
    });
    await pollUntil(() => (slowTools(mark).length > 0 ? true : undefined), 'the long tool runs', 20_000);
    const before = await readEventsUntil(host.client, working, (frame) => frame.event === 'permission_resolved');
    const { turnId: waiting } = await host.client.call('postTurn', {
      params: { id: asking },
      body: { prompt: cases.prompt('make a file', { prompt: bashCall('touch crash.txt') }) },
    });
    const asked = await readEventsUntil(host.client, asking, (frame) => frame.event === 'permission_request');
    const requestId = dataOf<{ interaction: { requestId: string } }>(asked.at(-1)).interaction.requestId;
    assert.ok(markedProcesses(mark).length >= 4, 'host, sidecar, Claude Code and the tool run');

    assert.equal(await host.stop('SIGKILL'), 'SIGKILL');
    // With its host gone the sidecar sees its stdin end and takes its Claude Code children with it.
    await pollUntil(() => (sidecars(mark).length === 0 ? true : undefined), 'the orphaned sidecar exits', 20_000);

    host = await serve();
    // What escaped (a tool in a process group of its own) is reaped by the next run of the host.
    await pollUntil(() => (slowTools(mark).length === 0 ? true : undefined), 'the orphaned tool is gone', 20_000);
    const client = host.client;
    // Everything a client saw before the kill is still in the log, unchanged.
    const replay = await readEventsUntil(client, working, isDoneOf(cut));
    const stored = new Map(replay.map((frame) => [frame.id, frame]));
    for (const frame of before) assert.deepEqual(stored.get(frame.id), frame, `event ${frame.id} kept`);
    const cutFrames = replay.filter((frame) => dataOf<{ turnId?: string }>(frame).turnId === cut);
    assert.equal(cutFrames.filter((frame) => frame.event === 'done').length, 1);
    const done = dataOf<{ outcome: string; error: { code: string } }>(cutFrames.at(-1));
    assert.equal(cutFrames.at(-1)?.event, 'done');
    assert.equal(done.outcome, 'interrupted');
    assert.equal(done.error.code, 'host_restarted');

    const page = await client.call('listMessages', { params: { id: working } });
    assert.deepEqual(
      page.turns.map((turn) => [turn.id, turn.status]),
      [
        [remembered, 'completed'],
        [cut, 'interrupted'],
      ],
    );
    assert.deepEqual(
      page.messages.filter((row) => row.turnId === remembered).map((row) => row.role),
      ['user', 'assistant'],
    );
    const toolRow = page.messages.find((row) => row.turnId === cut && row.content[0]?.type === 'tool_use');
    const result = toolRow?.content[1];
    assert.equal(result?.type, 'tool_result', 'the call left open got a result');
    assert.equal(result?.type === 'tool_result' && result.resultSource, 'synthesized');
    assert.equal(result?.type === 'tool_result' && result.is_error, true);
    const snapshot = await client.call('getSession', { params: { id: working } });
    assert.equal(snapshot.openTurn, null);
    assert.equal(snapshot.session.status, 'idle');

    // The approval the killed host was waiting for is superseded, in the inbox and for an answer.
    const inbox = await client.call('listInteractions', { query: { status: 'pending' } });
    assert.equal(inbox.interactions.length, 0);
    const [gone] = (await client.call('listInteractions', { query: {} })).interactions.filter(
      (item) => item.requestId === requestId,
    );
    assert.equal(gone?.status, 'superseded');
    assert.equal(gone?.resolution, 'host_restarted');
    await assert.rejects(
      client.call('answerInteraction', {
        params: { id: asking, requestId },
        body: { action: 'allow', optionId: 'allow', payload: {} },
      }),
      (error: unknown) => error instanceof HostApiError && error.status === 410,
    );
    const askingPage = await client.call('listMessages', { params: { id: asking } });
    assert.equal(askingPage.turns.find((turn) => turn.id === waiting)?.status, 'interrupted');

    // The session continues from Claude's transcript.
    const recallPrompt = cases.prompt('which bird?', { prompt: text('KESTREL.') });
    await runTurnToDone(client, working, recallPrompt);
    const [request] = modelRequestsWith(mock, recallPrompt);
    assert.ok(request?.includes('remember the bird KESTREL'), 'resumed with its history');

    assert.equal(await host.stop('SIGTERM'), 0);
    host = undefined;
    await assertNoProcessesLeft(mark, 20_000);
  } finally {
    await host?.stop('SIGKILL');
    killMarkedProcesses(mark);
    await mock.close();
    await home.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  }
});

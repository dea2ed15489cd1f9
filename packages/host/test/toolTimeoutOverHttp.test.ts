import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { pollUntil } from '@outrigger/claude-sdk-sidecar/testing';
import type { SseFrame } from '@outrigger/host-api';
import { bashCall, caseScripts, text } from '../src/sessions/testing/scriptedModel.ts';
import { markedProcesses } from './harness/processes.ts';
import { isDoneOf, readEventsUntil } from './harness/sseReader.ts';
import { startTestHost } from './harness/testHost.ts';

/* `--tool-timeout` over HTTP with the real sidecar and Claude Code: a tool that runs too long ends its turn. */

const dataOf = <T = Record<string, unknown>>(frame: SseFrame | undefined) => frame?.data as T;

test('a tool running past --tool-timeout is reported and its turn canceled; waiting for the approval does not count', async () => {
  const cases = caseScripts();
  const testHost = await startTestHost({ rules: [cases.rule], toolTimeoutMs: 1_500 });
  try {
    const { client } = testHost;
    const sessionId = (await client.call('createSession', { body: { cwd: testHost.cwd, title: 'slow tool' } })).id;
    const command = 'python3 -c "import time; time.sleep(60)"';
    const { turnId } = await client.call('postTurn', {
      params: { id: sessionId },
      body: {
        prompt: cases.prompt('run the slow tool', { prompt: bashCall(command), afterTool: () => text('Done.') }),
      },
    });
    const asked = await readEventsUntil(client, sessionId, (frame) => frame.event === 'permission_request');
    const requestId = dataOf<{ interaction: { requestId: string } }>(asked.at(-1)).interaction.requestId;
    // Longer than the limit: the clock must not run while a person decides.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await client.call('answerInteraction', {
      params: { id: sessionId, requestId },
      body: { action: 'allow', optionId: 'allow', payload: {} },
    });
    const frames = (await readEventsUntil(client, sessionId, isDoneOf(turnId))).filter(
      (frame) => dataOf<{ turnId?: string }>(frame).turnId === turnId,
    );
    const timeout = frames.find((frame) => frame.event === 'tool_timeout');
    const reported = dataOf<{ toolName: string; elapsedSeconds: number; tool_use_id: string }>(timeout);
    assert.equal(reported.toolName, 'Bash');
    assert.ok(reported.elapsedSeconds >= 1.5, `reported after ${reported.elapsedSeconds} s`);
    const types = frames.map((frame) => frame.event);
    assert.ok(types.indexOf('tool_timeout') < types.indexOf('turn_canceled'), 'reported, then canceled');
    assert.equal(dataOf<{ outcome: string }>(frames.at(-1)).outcome, 'canceled');
    assert.equal(types.filter((type) => type === 'done').length, 1);
    const result = frames.find(
      (frame) =>
        frame.event === 'tool_result' && dataOf<{ tool_use_id: string }>(frame).tool_use_id === reported.tool_use_id,
    );
    assert.equal(dataOf<{ status: string }>(result).status, 'failed', 'the slow call ends with an error result');
    // The canceled tool's process is gone with the turn, not only when the host stops.
    const sleeping = () =>
      markedProcesses(testHost.mark).filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('time.sleep(60)');
        } catch {
          return false;
        }
      });
    await pollUntil(() => (sleeping().length === 0 ? true : undefined), 'the slow tool process is gone', 10_000);
    await client.call('closeSession', { params: { id: sessionId } });
  } finally {
    // Fails when anything (the python child included) is left behind.
    await testHost.close();
  }
});

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { demoScenario, type MockAnthropic, startMockAnthropic } from '@outrigger/mock-anthropic';
import { type ClaudeTestHome, createClaudeTestHome } from '@outrigger/mock-anthropic/testing';
import { isTerminalOf } from '../../src/testing/turnEvents.ts';
import { type ControlSidecar, type LoggedLine, startControlSidecar } from './controlSidecar.ts';

/*
 * "Allow for session" for the commands of the demo model `npm start` runs, through the real sidecar and
 * Claude Code against the demo scenario itself: each command is granted once and never asked again.
 */

describe('"Allow for session" for the demo model commands', () => {
  let mock: MockAnthropic;
  let home: ClaudeTestHome;
  let sidecar: ControlSidecar;
  const agentSessionId = `demo-grants-${randomUUID()}`;

  before(async () => {
    mock = await startMockAnthropic({ scenario: demoScenario });
    home = await createClaudeTestHome({ baseUrl: mock.url });
    sidecar = await startControlSidecar({ env: home.env });
    const started = await sidecar.request('start', { agentSessionId, cwd: home.cwd, permissionModeId: 'default' });
    assert.equal(started.type, 'ok', JSON.stringify(started.payload));
  });

  after(async () => {
    try {
      await sidecar?.request('close', { agentSessionId }).catch(() => undefined);
      await sidecar?.stop();
    } finally {
      await mock?.close();
      await home?.cleanup();
    }
  });

  const ofTurn = (type: string, turnId: string) => (line: LoggedLine) =>
    line.id === undefined && line.type === type && line.payload.turnId === turnId;

  /** Runs `prompt` as a turn, granting "Allow for session" to whatever it asks; resolves with its requests. */
  const runGranting = async (prompt: string): Promise<{ turnId: string; asked: LoggedLine[]; from: number }> => {
    const turnId = `demo-${randomUUID()}`;
    const from = sidecar.log.length;
    const answered = new Set<string>();
    const stopGranting = setInterval(() => {
      for (const approval of sidecar.log.filter(ofTurn('approval_requested', turnId))) {
        const requestId = String(approval.payload.requestId);
        if (answered.has(requestId)) continue;
        answered.add(requestId);
        void sidecar.request('submit_interactive', {
          agentSessionId,
          turnId,
          requestId,
          action: 'allow_always',
          optionId: 'allow_always',
          payload: {},
        });
      }
    }, 20);
    try {
      assert.equal((await sidecar.request('exec', { agentSessionId, turnId, prompt })).type, 'ok');
      const terminal = await sidecar.waitFor(isTerminalOf(turnId), `the terminal of "${prompt}"`, {
        timeoutMs: 30_000,
      });
      assert.equal(terminal.type, 'turn_completed', JSON.stringify(terminal.payload));
    } finally {
      clearInterval(stopGranting);
    }
    return { turnId, asked: sidecar.log.filter(ofTurn('approval_requested', turnId)), from };
  };

  const bashInputs = (turnId: string): unknown[] =>
    sidecar.log
      .filter((line) => ofTurn('tool_started', turnId)(line) && line.payload.toolName === 'Bash')
      .map((line) => (line.payload.toolCall as { input?: unknown } | undefined)?.input ?? line.payload.input);

  it('the file-writing command is asked once and then allowed for the session', async () => {
    const first = await runGranting('Please run a shell command.');
    assert.equal(first.asked.length, 1, 'the first run asks');
    const second = await runGranting('Please run a shell command.');
    assert.deepEqual(second.asked, [], 'the identical command is not asked again');
    assert.notDeepEqual(bashInputs(first.turnId), [], 'precondition: the first run started the Bash command');
    assert.deepEqual(bashInputs(second.turnId), bashInputs(first.turnId), 'it was the identical request');
    assert.ok(
      sidecar.log.some((line) => ofTurn('tool_completed', second.turnId)(line)),
      'the command ran',
    );
  });

  it('the background job command is asked once and then allowed for the session', async () => {
    const waitForFollowUp = (from: number) =>
      sidecar.waitFor(
        (line) =>
          line.index >= from && line.type === 'turn_completed' && line.payload.stopReason === 'background_agent_idle',
        'the end of the background follow-up',
        { timeoutMs: 30_000 },
      );
    const first = await runGranting('Start a background job.');
    assert.equal(first.asked.length, 1, 'the first run asks');
    await waitForFollowUp(first.from);
    const second = await runGranting('Start a background job.');
    assert.deepEqual(second.asked, [], 'the identical command is not asked again');
    await waitForFollowUp(second.from);
  });

  it('answered every model request from the demo scenario and wrote only valid protocol lines', () => {
    assert.deepEqual(mock.unmatched, []);
    assert.deepEqual(sidecar.protocolErrors, []);
  });
});

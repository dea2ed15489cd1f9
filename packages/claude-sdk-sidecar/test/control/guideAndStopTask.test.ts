import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import {
  isAlive,
  processesMatching,
  waitForProcesses,
  waitUntilGone,
  youngestChild,
} from '../../src/testing/processTree.ts';
import { allowApproval, assertOk, type ControlSession, newTurnId, openControlSession } from './controlSession.ts';
import type { Answer, LoggedLine } from './controlSidecar.ts';
import { slowText } from './scriptedModel.ts';

/** Reference §3.2 (guide) and §2.1 (stop_task) through the real sidecar process and real Claude Code. */
describe('guide and stop_task through the real sidecar and Claude Code', () => {
  let session: ControlSession;
  /** Markers of the background commands this file started, to reap whatever a failed test left running. */
  const markers: string[] = [];

  before(async () => {
    session = await openControlSession();
  });

  after(async () => {
    try {
      await session?.close();
    } finally {
      for (const pid of markers.flatMap((marker) => processesMatching(marker))) {
        if (isAlive(pid)) process.kill(pid, 'SIGKILL');
      }
    }
  });

  const stopTask = (fields: { taskId?: string; toolCallId?: string }): Promise<Answer> =>
    session.sidecar.request('stop_task', { agentSessionId: session.agentSessionId, ...fields }, { timeoutMs: 15_000 });

  /**
   * Runs a turn whose model launches `python3 -c "sleep"` as a background Bash task, allows it, and
   * resolves once the process runs and the turn completed, with the task id and the launching tool call.
   */
  const launchBackgroundSleeper = async (label: string) => {
    const turnId = newTurnId(label);
    const marker = `bg-sleeper-${randomUUID()}`;
    markers.push(marker);
    const prompt = session.model.prompt('Start the background job.', {
      prompt: {
        content: [
          {
            type: 'tool_use',
            name: 'Bash',
            input: {
              command: `python3 -c "import time; time.sleep(120); print('${marker}')"`,
              description: 'Background sleeper',
              run_in_background: true,
            },
          },
        ],
      },
      afterTool: () => ({ content: [{ type: 'text', text: 'The job runs in the background.' }] }),
    });
    assertOk(await session.exec(turnId, prompt), 'exec');
    const toolCallId = String((await allowApproval(session, turnId)).payload.toolCallId);
    const pids = await waitForProcesses(marker, `the background python command ${marker} is running`, 20_000);
    const terminal = await session.waitForTerminal(turnId);
    assert.equal(terminal.type, 'turn_completed', `the launching turn completes: ${JSON.stringify(terminal.payload)}`);
    const launch = session.sidecar.log.find(
      (line) =>
        line.id === undefined &&
        (line.type === 'tool_updated' || line.type === 'tool_completed') &&
        line.payload.toolCallId === toolCallId &&
        backgroundTaskIdOf(line) !== undefined,
    );
    const taskId = launch ? backgroundTaskIdOf(launch) : undefined;
    assert.ok(taskId, `the launch of ${toolCallId} reports its background task id`);
    return { turnId, toolCallId, taskId, pids };
  };

  it('guides a slow stream: guidance_interrupted, the guided prompt in the same session, one terminal', async () => {
    const turnId = newTurnId('guided');
    const firstPrompt = session.model.prompt('Stream a long answer.', { prompt: slowText(100) });
    const exec = await session.exec(turnId, firstPrompt);
    assertOk(exec, 'exec');
    const identity = await session.waitForEvent('provider_turn_identity_resolved', turnId);
    await session.waitForEvent('assistant_delta', turnId);
    const claude = youngestChild(session.sidecar.pid, 'claude');
    assert.ok(claude, 'the Claude Code child of the sidecar');

    const tag = `guided-${randomUUID()}`;
    const guidance = session.model.prompt(`Change course ${tag}.`, {
      prompt: { content: [{ type: 'text', text: 'Following the guidance.' }] },
    });
    const answer = await session.sidecar.request(
      'guide',
      { agentSessionId: session.agentSessionId, prompt: guidance, content: [] },
      { timeoutMs: 15_000 },
    );
    assertOk(answer, 'guide');
    const interrupted = session.eventsOf('guidance_interrupted', turnId);
    assert.equal(interrupted.length, 1, 'one guidance_interrupted for the turn');
    assert.ok(interrupted[0] && interrupted[0].index < answer.index, 'guidance_interrupted comes before the ok');

    const terminal = await session.waitForTerminal(turnId);
    assert.equal(terminal.type, 'turn_completed', `the guided turn completes: ${JSON.stringify(terminal.payload)}`);
    assert.equal(terminal.payload.providerTurnId, identity.payload.providerTurnId, 'the turn keeps its identity');
    const guided = session.model.views().find((view) => view.isNewPrompt && view.lastUserText.includes(tag));
    assert.ok(guided, `the model received the guided prompt; unmatched: ${session.model.unmatched().join(' | ')}`);
    assert.ok(
      JSON.stringify(guided.body).includes(firstPrompt),
      'the guided request carries the first prompt in its history: same session',
    );
    assert.equal(youngestChild(session.sidecar.pid, 'claude'), claude, 'the same Claude Code process (same Query)');
    const guidedOutput = session.sidecar.log.filter(
      (line) => line.index > answer.index && line.type === 'assistant_completed' && line.payload.turnId === turnId,
    );
    assert.ok(
      guidedOutput.some((line) => String(line.payload.content).includes('Following the guidance.')),
      'the guided answer is published on the same turn',
    );
    // Sync point: a later turn on the same Query. Claude Code emits in order, so anything the guided run
    // still produced (a second terminal, a synthetic turn, stray output) is logged before this turn ends.
    const fenceTurnId = newTurnId('fence');
    const fencePrompt = session.model.prompt('Say done.', { prompt: { content: [{ type: 'text', text: 'Fence.' }] } });
    assertOk(await session.exec(fenceTurnId, fencePrompt), 'exec');
    const fence = await session.waitForTerminal(fenceTurnId);
    assert.equal(fence.type, 'turn_completed', `the fence turn completes: ${JSON.stringify(fence.payload)}`);
    assert.deepEqual(
      session.eventsOf('assistant_completed', fenceTurnId).map((line) => line.payload.content),
      ['Fence.'],
      'nothing of the guided run spilled into the next turn',
    );
    assert.deepEqual(
      session.terminalsOf(turnId).map((line) => line.type),
      ['turn_completed'],
      'exactly one terminal for the guided turn',
    );
    assert.deepEqual(
      session.sidecar.log
        .filter((line) => line.index > exec.index && line.type === 'turn_started')
        .map((line) => line.payload),
      [],
      'no synthetic turn was opened for the guided run',
    );
  });

  /** A turn streaming slowly, and its Claude Code child stopped (SIGSTOP): no interrupt gets acknowledged. */
  const frozenStreamingTurn = async (label: string) => {
    const turnId = newTurnId(label);
    assertOk(
      await session.exec(turnId, session.model.prompt('Stream a long answer.', { prompt: slowText(60) })),
      'exec',
    );
    await session.waitForEvent('assistant_delta', turnId);
    const claude = youngestChild(session.sidecar.pid, 'claude');
    assert.ok(claude, 'the Claude Code child of the sidecar');
    process.kill(claude, 'SIGSTOP');
    return { turnId, claude };
  };

  /** A later turn on the session completes: the session goes on. */
  const assertSessionGoesOn = async (label: string) => {
    const turnId = newTurnId(label);
    const prompt = session.model.prompt('Say done.', { prompt: { content: [{ type: 'text', text: 'Still here.' }] } });
    assertOk(await session.exec(turnId, prompt), 'exec');
    const terminal = await session.waitForTerminal(turnId);
    assert.equal(terminal.type, 'turn_completed', `the next turn completes: ${JSON.stringify(terminal.payload)}`);
  };

  it('a guide whose interrupt is not acknowledged within its budget answers an error; the sidecar leaves the turn be', async () => {
    const { turnId, claude } = await frozenStreamingTurn('guide-budget');
    const tag = `never-delivered-${randomUUID()}`;
    let answer: Answer;
    try {
      answer = await session.sidecar.request(
        'guide',
        { agentSessionId: session.agentSessionId, prompt: tag, content: [], interruptTimeoutMs: 1_000 },
        { timeoutMs: 15_000 },
      );
    } finally {
      process.kill(claude, 'SIGCONT');
    }
    assert.equal(answer.type, 'error');
    assert.equal(answer.payload.error, 'Claude SDK guidance interrupt was not acknowledged within 1000ms');
    assert.deepEqual(session.eventsOf('guidance_interrupted', turnId), [], 'no guidance was announced');
    // Resumed, Claude Code may still act on the interrupt it got late; either way the turn ends once.
    await session.waitForTerminal(turnId);
    await assertSessionGoesOn('after-guide-budget');
    assert.equal(session.terminalsOf(turnId).length, 1, 'exactly one terminal');
    assert.ok(
      session.model.views().every((view) => !JSON.stringify(view.body).includes(tag)),
      'the guided prompt was never sent',
    );
    assert.equal(youngestChild(session.sidecar.pid, 'claude'), claude, 'the guide did not replace the Query');
  });

  it('a cancel queued behind a guide waiting for its interrupt is not delayed by the guide', async () => {
    const { turnId, claude } = await frozenStreamingTurn('guide-then-cancel');
    const { agentSessionId } = session;
    // The guide's budget (60 s) is far beyond the request deadline (20 s): waiting for it would fail the test.
    const [guided, canceled] = session.sidecar.requestTogether(
      [
        { type: 'guide', payload: { agentSessionId, prompt: 'steer', content: [], interruptTimeoutMs: 60_000 } },
        { type: 'cancel', payload: { agentSessionId, turnId, interruptTimeoutMs: 1_000, drainTimeoutMs: 5_000 } },
      ],
      { timeoutMs: 20_000 },
    );
    let guide: Answer;
    let cancel: Answer;
    try {
      [guide, cancel] = await Promise.all([guided, canceled]);
    } finally {
      if (isAlive(claude)) process.kill(claude, 'SIGKILL');
    }
    assert.equal(guide.type, 'error');
    assert.equal(guide.payload.error, 'Claude SDK guidance was superseded by a cancel of its turn');
    assertOk(cancel, 'cancel');
    assert.equal(cancel.payload.disposition, 'provider_active');
    assert.ok(guide.index < cancel.index, 'the guide gave way and answered first, in request order');
    assert.deepEqual(
      session.terminalsOf(turnId).map((line) => line.type),
      ['turn_canceled'],
    );
    await assertSessionGoesOn('after-guide-cancel');
  });

  it('stops a background Bash task by its task id: stopped, the process is gone', async () => {
    const { taskId, pids } = await launchBackgroundSleeper('stop-by-task-id');
    const answer = await stopTask({ taskId });
    assertOk(answer, 'stop_task');
    assert.deepEqual(answer.payload, { stopped: true });
    await waitUntilGone(pids, `the python processes ${pids.join(', ')} are gone after stop_task`, 10_000);
  });

  it('answers stopped:false for an unknown task id or tool call', async () => {
    const unknownTask = await stopTask({ taskId: 'bnosuchtk' });
    assertOk(unknownTask, 'stop_task');
    assert.deepEqual(
      unknownTask.payload,
      { stopped: false },
      'Claude Code acknowledges stop_task for any id: only a task the sidecar knows to be running may answer true',
    );
    const unknownCall = await stopTask({ toolCallId: `toolu_${randomUUID().replaceAll('-', '')}` });
    assertOk(unknownCall, 'stop_task');
    assert.deepEqual(unknownCall.payload, { stopped: false });
  });

  it('stops a background Bash task by the toolCallId that launched it', async () => {
    const { toolCallId, taskId, pids } = await launchBackgroundSleeper('stop-by-tool-call');
    const answer = await stopTask({ toolCallId });
    assertOk(answer, 'stop_task');
    assert.deepEqual(
      answer.payload,
      { stopped: true },
      `stop_task {toolCallId: ${toolCallId}} must stop background task ${taskId}`,
    );
    await waitUntilGone(
      pids,
      `stop_task {toolCallId: ${toolCallId}} answered ${JSON.stringify(answer.payload)}; background task ${taskId} (python ${pids.join(', ')}) must be gone`,
      10_000,
    );
  });

  it('wrote only well-formed protocol lines whose events match their schemas', () => {
    assert.deepEqual(session.sidecar.protocolErrors, []);
  });
});

function backgroundTaskIdOf(line: LoggedLine): string | undefined {
  const metadata = line.payload.metadata;
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const background = (metadata as { backgroundProcess?: unknown }).backgroundProcess;
  if (typeof background !== 'object' || background === null) return undefined;
  const taskId = (background as { taskId?: unknown }).taskId;
  return typeof taskId === 'string' && taskId !== '' ? taskId : undefined;
}

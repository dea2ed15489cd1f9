import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import type { SidecarEvent, SidecarRequest } from '@outrigger/protocol';
import { HostError } from '../hostError.ts';
import { defaultHandler, type FakeHandler, type FakeSidecar } from '../sidecar/fakeSidecarConnection.ts';
import { markedProcesses, SESSION_MARK_VARIABLE } from '../sidecar/processMarks.ts';
import { StoreError } from '../store/storeError.ts';
import { testSession } from '../store/testRecords.ts';
import type { HostSessionDeps } from './hostSession.ts';
import { FakeLedger } from './testing/fakeLedger.ts';
import { sessionHarness } from './testing/sessionHarness.ts';
import { REAP_GRACE_MS } from './toolProcesses.ts';

/* The session state machine over a real SidecarSupervisor and SidecarClient, a scripted sidecar and an in-memory ledger. */

const BUDGETS = { interruptTimeoutMs: 1_000, drainTimeoutMs: 1_000 };
const png = Buffer.from([1, 2, 3, 4, 5, 6]).toString('base64');

function harness(
  handler: FakeHandler = defaultHandler,
  options: {
    submitTimeoutMs?: number;
    toolTimeoutMs?: number;
    ledger?: FakeLedger;
    checkpoints?: HostSessionDeps['checkpoints'];
  } = {},
) {
  const { supervisor, ledger, session, sidecars, logger, close } = sessionHarness({
    handler,
    ledger: options.ledger,
    deps: {
      submitTimeoutMs: options.submitTimeoutMs,
      toolTimeoutMs: options.toolTimeoutMs,
      internalCancelBudgets: BUDGETS,
      checkpoints: options.checkpoints,
    },
  });
  const sidecar = (): FakeSidecar => sidecars.at(-1)!;
  const emit = (type: Parameters<FakeSidecar['emit']>[0], payload: Record<string, unknown>) =>
    sidecar().emit(type, { agentSessionId: 's1', ...payload });
  const requestsOf = (type: string): SidecarRequest[] =>
    sidecars.flatMap((fake) => fake.requests.filter((request) => request.type === type));
  const settle = () => session.queue.drained();
  return {
    supervisor,
    ledger,
    session,
    sidecars,
    sidecar,
    emit,
    requestsOf,
    settle,
    logger,
    close,
  };
}

type Harness = ReturnType<typeof harness>;

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 3_000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function completeTurn(h: Harness, turnId: string, providerTurnId = `p-${turnId}`): Promise<void> {
  h.emit('provider_turn_identity_resolved', { turnId, providerTurnId });
  h.emit('turn_completed', { turnId, providerTurnId, stopReason: 'end_turn' });
  await until(() => h.ledger.turn(turnId)?.status === 'completed', `${turnId} completed`);
  await h.settle();
}

/** A sidecar that answers `cancel` with `answer` (for the canceled turn) and everything else as usual. */
function answeringCancel(answer: Record<string, unknown>): FakeHandler {
  return (request) =>
    request.type === 'cancel' ? { ok: { ...answer, turnId: String(request.payload.turnId) } } : defaultHandler(request);
}

/**
 * A tool's shell (`sh` and its `sleep`) in a process group of its own, as Claude Code runs it, with the
 * mark `start` gave session s1; `kill()` makes sure it is gone when the test ends.
 */
function spawnMarkedTool() {
  const tool = spawn('/bin/sh', ['-c', 'sleep 60 & wait'], {
    env: { PATH: process.env.PATH, [SESSION_MARK_VARIABLE]: 's1' },
    detached: true,
    stdio: 'ignore',
  });
  return {
    /** How many processes carry the session's mark. */
    markedProcesses: () => markedProcesses(SESSION_MARK_VARIABLE, 's1').length,
    kill: () => {
      try {
        process.kill(-tool.pid!, 'SIGKILL');
      } catch {
        // Already gone, as a reaped tool should be.
      }
    },
  };
}

function rejectsWith(code: string) {
  return (error: unknown) => {
    assert.ok(error instanceof HostError, String(error));
    assert.equal(error.code, code, error.message);
    return true;
  };
}

describe('HostSession turns', () => {
  test('a free session starts in the sidecar and runs the prompt; later prompts queue and run in order', async () => {
    const h = harness();
    try {
      const first = await h.session.postTurn({ prompt: 'one' });
      assert.deepEqual(first, { turnId: 'id-1', queued: false, steered: false, replayed: false });
      assert.deepEqual(
        h.requestsOf('start').map((request) => request.payload.restore),
        [undefined],
        'a fresh start: nothing to restore yet',
      );
      assert.deepEqual(
        h.requestsOf('exec').map((request) => request.payload),
        [{ agentSessionId: 's1', turnId: 'id-1', prompt: 'one', content: [{ type: 'text', text: 'one' }] }],
      );
      const second = await h.session.postTurn({ prompt: 'two' });
      const third = await h.session.postTurn({ prompt: 'three', mode: 'queue' });
      assert.equal(second.queued, true);
      assert.equal(third.queued, true);
      assert.equal(h.requestsOf('exec').length, 1, 'nothing else is sent while a user turn runs');

      await completeTurn(h, 'id-1');
      assert.deepEqual(
        h.requestsOf('exec').map((request) => request.payload.turnId),
        ['id-1', second.turnId],
      );
      assert.equal(h.ledger.turn(second.turnId)?.status, 'running');
      await completeTurn(h, second.turnId);
      await completeTurn(h, third.turnId);
      assert.deepEqual(
        h.requestsOf('exec').map((request) => request.payload.turnId),
        ['id-1', second.turnId, third.turnId],
      );
      assert.equal(h.requestsOf('start').length, 1, 'started once on this sidecar');
      for (const turnId of ['id-1', second.turnId, third.turnId]) assert.equal(h.ledger.of('done', turnId).length, 1);
    } finally {
      await h.close();
    }
  });

  test('a retried POST with the same clientMessageId answers the same turn and starts nothing', async () => {
    const h = harness();
    try {
      const [a, b] = await Promise.all([
        h.session.postTurn({ prompt: 'once', clientMessageId: 'c-1' }),
        h.session.postTurn({ prompt: 'once', clientMessageId: 'c-1' }),
      ]);
      assert.equal(a.replayed, false);
      assert.deepEqual(b, { turnId: a.turnId, queued: false, steered: false, replayed: true });
      const queued = await h.session.postTurn({ prompt: 'later', clientMessageId: 'c-2' });
      const again = await h.session.postTurn({ prompt: 'later', clientMessageId: 'c-2' });
      assert.deepEqual(again, { turnId: queued.turnId, queued: true, steered: false, replayed: true });
      assert.equal(h.requestsOf('exec').length, 1);
      assert.equal(h.ledger.turns.size, 2);
    } finally {
      await h.close();
    }
  });

  test('steer sends guide into the running turn with its content, records the message, and replays once', async () => {
    const h = harness();
    try {
      const running = await h.session.postTurn({ prompt: 'work' });
      const steered = await h.session.postTurn({
        prompt: 'also this',
        mode: 'steer',
        clientMessageId: 's-1',
        content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }],
      });
      assert.deepEqual(steered, { turnId: running.turnId, queued: false, steered: true, replayed: false });
      assert.deepEqual(h.requestsOf('guide')[0]?.payload, {
        agentSessionId: 's1',
        prompt: 'also this',
        content: [
          { type: 'text', text: 'also this' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
        ],
      });
      assert.equal(h.ledger.of('user_message', running.turnId).length, 1);
      const retry = await h.session.postTurn({ prompt: 'also this', mode: 'steer', clientMessageId: 's-1' });
      assert.deepEqual(retry, { turnId: running.turnId, queued: false, steered: true, replayed: true });
      assert.equal(h.requestsOf('guide').length, 1);

      await completeTurn(h, running.turnId);
      const free = await h.session.postTurn({ prompt: 'no turn runs', mode: 'steer' });
      assert.equal(free.steered, false, 'with no running turn a steer is an ordinary turn');
      assert.equal(free.queued, false);
    } finally {
      await h.close();
    }
  });

  test('a refused exec fails that turn with its own done, and the queue goes on', async () => {
    let execs = 0;
    const h = harness((request) => {
      if (request.type === 'exec' && ++execs === 1) return { error: 'session s1 is not started' };
      return defaultHandler(request);
    });
    try {
      const first = await h.session.postTurn({ prompt: 'refused' });
      assert.equal(h.ledger.turn(first.turnId)?.status, 'failed');
      assert.deepEqual(
        h.ledger.of('done', first.turnId).map((entry) => entry.detail),
        ['dispatch_failed'],
      );
      const second = await h.session.postTurn({ prompt: 'fine' });
      assert.equal(second.queued, false);
      assert.equal(h.ledger.turn(second.turnId)?.status, 'running');
    } finally {
      await h.close();
    }
  });

  test('a sidecar that cannot start the session is a 503 and stores nothing', async () => {
    const h = harness((request) =>
      request.type === 'start' ? { error: 'Claude Code executable not found' } : defaultHandler(request),
    );
    try {
      await assert.rejects(h.session.postTurn({ prompt: 'x' }), rejectsWith('sidecar_unavailable'));
      assert.equal(h.ledger.turns.size, 0);
    } finally {
      await h.close();
    }
  });

  test('a closed session takes no turns; its queued prompts end and the sidecar closes it', async () => {
    const h = harness();
    try {
      const running = await h.session.postTurn({ prompt: 'a' });
      const queued = await h.session.postTurn({ prompt: 'b' });
      await h.session.close();
      assert.deepEqual(
        h.ledger.of('done', queued.turnId).map((entry) => entry.detail),
        ['canceled'],
      );
      assert.equal(h.requestsOf('close').length, 1);
      await assert.rejects(h.session.postTurn({ prompt: 'c' }), rejectsWith('session_closed'));
      h.emit('turn_failed', { turnId: running.turnId, error: 'Claude SDK session closed' });
      await until(() => h.ledger.turn(running.turnId)?.status === 'failed', 'the running turn ends');
      await h.settle();
      assert.equal(h.requestsOf('exec').length, 1, 'the queued prompt never ran');
    } finally {
      await h.close();
    }
  });
});

describe('HostSession checkpoints', () => {
  /** Records each snapshot asked for, and what the exec had been sent by then (a start must come before it). */
  function recordingCheckpoints(h: () => Harness, fail?: 'end') {
    const taken: string[] = [];
    const checkpoints: NonNullable<HostSessionDeps['checkpoints']> = {
      record: async (turnId, edge) => {
        taken.push(`${edge} ${turnId} after ${h().requestsOf('exec').length} exec`);
        if (edge === fail) throw new Error('git is not installed (or not on PATH)');
        const id = edge === 'start' ? 'a'.repeat(40) : 'b'.repeat(40);
        const kind = edge === 'start' ? ('turn_start' as const) : ('turn_end' as const);
        return { checkpoint: { id, kind, turnId, createdAt: 1 }, filesChanged: edge === 'end' ? 2 : null };
      },
    };
    return { taken, checkpoints };
  }

  test('each turn is checkpointed before its exec and once it ended, queued ones too, each as a checkpoint event', async () => {
    let h: Harness | undefined;
    const recorder = recordingCheckpoints(() => h!);
    h = harness(defaultHandler, { checkpoints: recorder.checkpoints });
    try {
      await h.session.postTurn({ prompt: 'one' });
      const second = await h.session.postTurn({ prompt: 'two' });
      await completeTurn(h, 'id-1');
      await completeTurn(h, second.turnId);
      assert.deepEqual(recorder.taken, [
        'start id-1 after 0 exec',
        'end id-1 after 1 exec',
        `start ${second.turnId} after 1 exec`,
        `end ${second.turnId} after 2 exec`,
      ]);
      const events = h.ledger.commands.filter((command) => command.type === 'checkpointRecorded');
      assert.deepEqual(
        events.map((command) => [command.turnId, command.checkpoint?.kind, command.filesChanged, command.error]),
        [
          ['id-1', 'turn_start', null, null],
          ['id-1', 'turn_end', 2, null],
          [second.turnId, 'turn_start', null, null],
          [second.turnId, 'turn_end', 2, null],
        ],
      );
    } finally {
      await h.close();
    }
  });

  test('a checkpoint that fails is said on the turn, which completes as usual', async () => {
    let h: Harness | undefined;
    const recorder = recordingCheckpoints(() => h!, 'end');
    h = harness(defaultHandler, { checkpoints: recorder.checkpoints });
    try {
      await h.session.postTurn({ prompt: 'one' });
      await completeTurn(h, 'id-1');
      assert.equal(h.ledger.turn('id-1')?.status, 'completed');
      const failed = h.ledger.commands.find(
        (command) => command.type === 'checkpointRecorded' && command.checkpoint === null,
      );
      assert.deepEqual(failed, {
        type: 'checkpointRecorded',
        turnId: 'id-1',
        checkpoint: null,
        filesChanged: null,
        error: 'git is not installed (or not on PATH)',
      });
      assert.ok(h.logger.records.some((record) => record.fields.event === 'session.checkpoint_failed'));
    } finally {
      await h.close();
    }
  });

  test('files are changed only while the session is idle: a running turn refuses it', async () => {
    const h = harness();
    try {
      await h.session.postTurn({ prompt: 'one' });
      await assert.rejects(
        h.session.whileIdle(async () => 'changed'),
        (error) => error instanceof HostError && error.code === 'conflict',
      );
      await completeTurn(h, 'id-1');
      assert.equal(await h.session.whileIdle(async () => 'changed'), 'changed');
    } finally {
      await h.close();
    }
  });
});

describe('HostSession cancel', () => {
  test('a queued turn is removed pre_accept with its own done, without asking the sidecar', async () => {
    const h = harness();
    try {
      await h.session.postTurn({ prompt: 'running' });
      const queued = await h.session.postTurn({ prompt: 'queued' });
      const answer = await h.session.cancelTurn(queued.turnId, BUDGETS);
      assert.deepEqual(answer, {
        turnId: queued.turnId,
        canceled: true,
        disposition: 'pre_accept',
        providerTurnId: '',
      });
      assert.deepEqual(
        h.ledger.entries.filter((entry) => entry.turnId === queued.turnId).map((entry) => entry.kind),
        ['queue', 'turn_canceled', 'done'],
      );
      assert.equal(h.requestsOf('cancel').length, 0);
      const again = await h.session.cancelTurn(queued.turnId, BUDGETS);
      assert.equal(again.disposition, 'absent');
      await assert.rejects(h.session.cancelTurn('no-such-turn', BUDGETS), rejectsWith('not_found'));
    } finally {
      await h.close();
    }
  });

  test('provider_active answers only after the turn acceptance and its end are committed', async () => {
    const h = harness((request, fake) => {
      if (request.type !== 'cancel') return defaultHandler(request);
      const turnId = String(request.payload.turnId);
      // The sidecar writes the identity and the terminal before its answer, as it does.
      fake.emit('provider_turn_identity_resolved', { agentSessionId: 's1', turnId, providerTurnId: 'p-late' });
      fake.emit('turn_canceled', { agentSessionId: 's1', turnId, providerTurnId: 'p-late' });
      return {
        ok: {
          canceled: true,
          disposition: 'provider_active',
          turnId,
          providerTurnId: 'p-late',
          dispatchPhase: 'streaming',
        },
      };
    });
    try {
      const { turnId } = await h.session.postTurn({ prompt: 'long' });
      const slowApply = h.ledger.applySidecarEvent.bind(h.ledger);
      h.ledger.applySidecarEvent = async (event) => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        return slowApply(event);
      };
      const answer = await h.session.cancelTurn(turnId, BUDGETS);
      assert.deepEqual(answer, { turnId, canceled: true, disposition: 'provider_active', providerTurnId: 'p-late' });
      assert.equal(h.ledger.turn(turnId)?.providerTurnId, 'p-late', 'the binding was committed before the answer');
      assert.equal(h.ledger.turn(turnId)?.status, 'canceled');
      assert.deepEqual(h.requestsOf('cancel')[0]?.payload, { agentSessionId: 's1', turnId, ...BUDGETS });
    } finally {
      await h.close();
    }
  });

  test('a cancel kills what the canceled Claude Code left running, found by the session mark', async () => {
    const h = harness(
      answeringCancel({
        canceled: true,
        disposition: 'provider_active',
        providerTurnId: 'p1',
        dispatchPhase: 'running_tool',
      }),
    );
    const tool = spawnMarkedTool();
    try {
      const { turnId } = await h.session.postTurn({ prompt: 'run a tool' });
      assert.deepEqual(h.requestsOf('start')[0]?.payload.env, { [SESSION_MARK_VARIABLE]: 's1' });
      await until(() => tool.markedProcesses() >= 2, 'the tool runs');
      await h.session.cancelTurn(turnId, BUDGETS);
      await until(() => tool.markedProcesses() === 0, 'the tool is gone');
      assert.ok(h.logger.records.some((record) => record.fields.event === 'session.tool_processes_reaped'));
    } finally {
      tool.kill();
      await h.close();
    }
  });

  test('a cancel that withdrew a queued prompt (queryRetired: false) leaves the live Claude Code and its tools alone', async () => {
    const h = harness(
      answeringCancel({
        canceled: true,
        disposition: 'pre_accept',
        providerTurnId: '',
        dispatchPhase: 'dispatched',
        queryRetired: false,
      }),
    );
    const tool = spawnMarkedTool();
    try {
      const { turnId } = await h.session.postTurn({ prompt: 'queued behind a follow-up' });
      await until(() => tool.markedProcesses() >= 2, 'the tool runs');
      const answer = await h.session.cancelTurn(turnId, BUDGETS);
      assert.equal(answer.canceled, true);
      // Past the reaping grace: a cancel that retired the Query would have killed them by now.
      await new Promise((resolve) => setTimeout(resolve, REAP_GRACE_MS + 300));
      assert.ok(tool.markedProcesses() >= 2, 'the tool still runs');
      assert.ok(!h.logger.records.some((record) => record.fields.event === 'session.tool_processes_reaped'));
    } finally {
      tool.kill();
      await h.close();
    }
  });

  test('a drain time-out closes the session in the sidecar; the next turn starts it again', async () => {
    const h = harness((request) =>
      request.type === 'cancel'
        ? { error: 'Claude SDK Query consumption timed out after 1000ms', stage: 'consumption' }
        : defaultHandler(request),
    );
    try {
      const { turnId } = await h.session.postTurn({ prompt: 'stuck' });
      const answer = await h.session.cancelTurn(turnId, BUDGETS);
      assert.equal(answer.disposition, 'provider_state_lost');
      assert.equal(answer.canceled, false);
      assert.equal(h.requestsOf('close').length, 1);
      h.emit('turn_failed', { turnId, error: 'Claude SDK session closed' });
      await until(() => h.ledger.turn(turnId)?.status === 'failed', 'the stuck turn ends');
      await h.settle();
      await h.session.postTurn({ prompt: 'after' });
      assert.equal(h.requestsOf('start').length, 2, 'the session was started again');
    } finally {
      await h.close();
    }
  });
});

describe('HostSession interactions', () => {
  async function withApproval(h: Harness): Promise<{ turnId: string; requestId: string }> {
    const { turnId } = await h.session.postTurn({ prompt: 'needs approval' });
    h.emit('provider_turn_identity_resolved', { turnId, providerTurnId: 'p1' });
    h.emit('approval_requested', {
      turnId,
      requestId: 'r1',
      toolCallId: 'tool-1',
      toolName: 'Bash',
      input: { command: 'touch x' },
      options: [{ kind: 'allow_once', name: 'Allow', optionId: 'allow' }],
      toolCall: { toolCallId: 'tool-1', name: 'Bash', title: 'Bash', toolName: 'Bash', input: {} },
    });
    await until(() => h.ledger.interactions.get('r1') !== undefined, 'the interaction is stored');
    await h.settle();
    return { turnId, requestId: 'r1' };
  }

  const ALLOW = { action: 'allow', optionId: 'allow', payload: {} };

  test('answered once; the same answer again replays without sending; a different one is a conflict', async () => {
    const h = harness();
    try {
      const { turnId, requestId } = await withApproval(h);
      const first = await h.session.answerInteraction(requestId, ALLOW);
      assert.equal(first.replayed, false);
      assert.equal(first.interaction.status, 'answered');
      assert.deepEqual(h.requestsOf('submit_interactive')[0]?.payload, {
        agentSessionId: 's1',
        turnId,
        requestId,
        ...ALLOW,
      });
      const again = await h.session.answerInteraction(requestId, ALLOW);
      assert.equal(again.replayed, true);
      await assert.rejects(
        h.session.answerInteraction(requestId, { action: 'reject', optionId: 'reject', payload: {} }),
        rejectsWith('conflict'),
      );
      assert.equal(h.requestsOf('submit_interactive').length, 1);
      await assert.rejects(h.session.answerInteraction('nope', ALLOW), rejectsWith('not_found'));
    } finally {
      await h.close();
    }
  });

  test('a lost acknowledgement is settled with interactive_disposition, never a second submit', async () => {
    const h = harness(
      (request) => {
        if (request.type === 'submit_interactive') return 'hold';
        if (request.type === 'interactive_disposition') return { ok: { disposition: 'answered', replayed: true } };
        return defaultHandler(request);
      },
      { submitTimeoutMs: 50 },
    );
    try {
      const { requestId } = await withApproval(h);
      const answer = await h.session.answerInteraction(requestId, ALLOW);
      assert.equal(answer.replayed, false, 'the first answer the host recorded');
      assert.equal(answer.interaction.status, 'answered');
      assert.equal(h.requestsOf('submit_interactive').length, 1);
      assert.equal(h.requestsOf('interactive_disposition').length, 1);
    } finally {
      await h.close();
    }
  });

  test('an interaction the agent withdrew is gone (410), and stays gone', async () => {
    const h = harness((request) =>
      request.type === 'submit_interactive' ? { ok: { disposition: 'superseded' } } : defaultHandler(request),
    );
    try {
      const { requestId } = await withApproval(h);
      await assert.rejects(h.session.answerInteraction(requestId, ALLOW), rejectsWith('gone'));
      assert.equal(h.ledger.interactions.get(requestId)?.status, 'superseded');
      await assert.rejects(h.session.answerInteraction(requestId, ALLOW), rejectsWith('gone'));
      assert.equal(h.requestsOf('submit_interactive').length, 1);
    } finally {
      await h.close();
    }
  });
});

describe('HostSession and the sidecar dying', () => {
  test('a death ends the running turn at once with the stderr tail; the next prompt restarts from the cursor', async () => {
    const h = harness();
    try {
      const cursor = { kind: 'claude-agent-sdk', version: 1, resume: 'provider-s1', turnCount: 1 } as const;
      const { turnId } = await h.session.postTurn({ prompt: 'first' });
      h.emit('session_state', { providerSessionId: 'provider-s1', resumeCursor: cursor });
      h.emit('provider_turn_identity_resolved', { turnId, providerTurnId: 'p1' });
      h.emit('approval_requested', {
        turnId,
        requestId: 'r9',
        toolCallId: 'tool-9',
        toolName: 'Bash',
        input: {},
        options: [],
        toolCall: { toolCallId: 'tool-9', name: 'Bash', title: 'Bash', toolName: 'Bash', input: {} },
      });
      const queued = await h.session.postTurn({ prompt: 'queued behind' });
      await until(() => h.ledger.interactions.has('r9'), 'the approval');
      h.sidecar().writeStderr('Error: the sidecar ran out of memory');
      h.sidecar().die({ signal: 'SIGKILL' });
      await until(() => h.ledger.turn(turnId)?.status === 'failed', 'the turn ends');
      await until(() => h.ledger.turn(queued.turnId)?.status === 'running', 'the queued prompt runs');
      await h.settle();
      const failed = h.ledger.turn(turnId);
      assert.equal(failed?.error?.code, 'sidecar_exited');
      assert.equal(failed?.error?.message, 'sidecar exited: Error: the sidecar ran out of memory');
      assert.equal(h.ledger.of('done', turnId).length, 1);
      assert.equal(h.ledger.interactions.get('r9')?.resolution, 'sidecar_exited');
      assert.equal(h.sidecars.length, 2, 'the queued prompt respawned the sidecar');
      const restart = h.sidecars[1]?.requests.find((request) => request.type === 'start');
      assert.equal(restart?.payload.restore, true);
      assert.deepEqual(restart?.payload.resumeCursor, cursor);
      assert.equal(h.sidecars[1]?.requests.find((request) => request.type === 'exec')?.payload.turnId, queued.turnId);
    } finally {
      await h.close();
    }
  });

  test('a write failing for another reason than the store is logged; later events still apply', async () => {
    const h = harness();
    try {
      const { turnId } = await h.session.postTurn({ prompt: 'x' });
      h.ledger.failNextWrite = true;
      h.emit('provider_turn_identity_resolved', { turnId, providerTurnId: 'p1' });
      h.emit('turn_completed', { turnId, providerTurnId: 'p1', stopReason: 'end_turn' });
      await until(() => h.ledger.turn(turnId)?.status === 'completed', 'the terminal applies');
      assert.ok(h.logger.records.some((record) => record.fields.event === 'session.task_failed'));
    } finally {
      await h.close();
    }
  });

  test('a batch that fails for another reason than the store is applied event by event: only what fails alone is lost', async () => {
    /** Throws (not a StoreError) for every event of one type, as a projection bug would. */
    class BrokenLedger extends FakeLedger {
      override async applySidecarEvent(event: Parameters<FakeLedger['applySidecarEvent']>[0]) {
        if (event.type === 'session_state') throw new Error('projection bug');
        return super.applySidecarEvent(event);
      }
    }
    const ledger = new BrokenLedger(testSession('s1'));
    const h = harness(defaultHandler, { ledger });
    try {
      const { turnId } = await h.session.postTurn({ prompt: 'x' });
      const event = (type: string, payload: Record<string, unknown>) =>
        ({ type, payload: { agentSessionId: 's1', ...payload } }) as unknown as SidecarEvent;
      h.session.onSidecarEvent(event('provider_turn_identity_resolved', { turnId, providerTurnId: 'p1' }));
      h.session.onSidecarEvent(event('session_state', { resumeCursor: null }));
      h.session.onSidecarEvent(event('turn_completed', { turnId, providerTurnId: 'p1', stopReason: 'end_turn' }));
      await h.settle();
      assert.deepEqual(ledger.batches.at(-4), ['provider_turn_identity_resolved', 'session_state', 'turn_completed']);
      assert.deepEqual(ledger.batches.slice(-3), [
        ['provider_turn_identity_resolved'],
        ['session_state'],
        ['turn_completed'],
      ]);
      assert.equal(ledger.turn(turnId)?.providerTurnId, 'p1', 'the event before the broken one applied');
      assert.equal(ledger.turn(turnId)?.status, 'completed', 'the event after it applied');
      assert.deepEqual(
        h.logger.records.filter((record) => record.fields.event === 'session.task_failed').map((r) => r.fields.stage),
        ['apply a batch of 3', 'apply session_state'],
      );
    } finally {
      await h.close();
    }
  });

  test('events that arrive together apply as one batch, in order with the commands queued between them', async () => {
    const h = harness();
    try {
      const { turnId } = await h.session.postTurn({ prompt: 'x' });
      const event = (type: string, payload: Record<string, unknown>) =>
        ({ type, payload: { agentSessionId: 's1', ...payload } }) as unknown as SidecarEvent;
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      void h.session.queue.run(() => gate);
      const before = h.ledger.batches.length;
      h.session.onSidecarEvent(event('provider_turn_identity_resolved', { turnId, providerTurnId: 'p1' }));
      h.session.onSidecarEvent(event('assistant_delta', { turnId, messageId: 'm', content: 'a', snapshot: 'a' }));
      // A command queued now runs after the two events above and before any event that arrives later.
      const renamed = h.session.rename('renamed').then(() => h.ledger.batches.length - before);
      h.session.onSidecarEvent(event('assistant_delta', { turnId, messageId: 'm', content: 'b', snapshot: 'ab' }));
      h.session.onSidecarEvent(event('turn_completed', { turnId, providerTurnId: 'p1', stopReason: 'end_turn' }));
      release();
      await h.settle();
      assert.deepEqual(h.ledger.batches.slice(before), [
        ['provider_turn_identity_resolved', 'assistant_delta'],
        ['assistant_delta', 'turn_completed'],
      ]);
      assert.equal(await renamed, 1, 'the rename ran between the two batches');
      assert.deepEqual(
        h.ledger.entries.filter((entry) => entry.turnId === turnId).map((entry) => entry.kind),
        ['turn_started', 'binding', 'text', 'text', 'done'],
        'the barrier before the output, one done last',
      );
    } finally {
      await h.close();
    }
  });

  test('a write the store refuses (a sidecar event, a queued start) is tried again until it takes it; later work waits, in order', async () => {
    /** Refuses the next `refusals` sidecar events as a store that is down does, then takes them. */
    class RefusingLedger extends FakeLedger {
      refusals = 0;
      startRefusals = 0;
      override async applySidecarEvent(event: Parameters<FakeLedger['applySidecarEvent']>[0]) {
        if (this.refusals > 0) {
          this.refusals -= 1;
          throw new StoreError('injected: the disk is full');
        }
        return super.applySidecarEvent(event);
      }
      override async apply(command: Parameters<FakeLedger['apply']>[0]) {
        if (command.type === 'startQueuedTurn' && this.startRefusals > 0) {
          this.startRefusals -= 1;
          throw new StoreError('injected: the disk is full');
        }
        return super.apply(command);
      }
    }
    const ledger = new RefusingLedger(testSession('s1'));
    const h = harness(defaultHandler, { ledger });
    try {
      const { turnId } = await h.session.postTurn({ prompt: 'x' });
      ledger.refusals = 3;
      h.emit('provider_turn_identity_resolved', { turnId, providerTurnId: 'p1' });
      h.emit('turn_completed', { turnId, providerTurnId: 'p1', stopReason: 'end_turn' });
      await until(() => h.ledger.turn(turnId)?.status === 'completed', 'the terminal applies after the refusals');
      assert.equal(h.ledger.turn(turnId)?.providerTurnId, 'p1', 'the refused identity was applied, before the end');
      const retries = h.logger.records.filter((record) => record.fields.event === 'session.store_retry');
      assert.equal(retries.length, 1, 'one warning for the outage, not one per attempt');
      assert.equal(
        h.logger.records.some((record) => record.fields.event === 'session.task_failed'),
        false,
        'nothing was dropped',
      );

      // A queued prompt whose start the store refuses starts once it takes writes: the queue does not stall.
      const running = await h.session.postTurn({ prompt: 'runs' });
      const queued = await h.session.postTurn({ prompt: 'waits' });
      assert.equal(queued.queued, true);
      ledger.startRefusals = 2;
      await completeTurn(h, running.turnId);
      await until(
        () => h.requestsOf('exec').some((request) => request.payload.turnId === queued.turnId),
        'the queued exec',
      );
      assert.equal(h.ledger.turn(queued.turnId)?.status, 'running');
      await completeTurn(h, queued.turnId);

      // A host shutting down stops trying: what stays unstored is the next start's to recover.
      const second = await h.session.postTurn({ prompt: 'y' });
      ledger.refusals = Number.POSITIVE_INFINITY;
      h.emit('provider_turn_identity_resolved', { turnId: second.turnId, providerTurnId: 'p2' });
      await until(
        () => h.logger.records.filter((record) => record.fields.event === 'session.store_retry').length === 2,
        'the second outage',
      );
      h.session.stop();
      await h.settle();
      assert.equal(h.ledger.turn(second.turnId)?.providerTurnId, null);
    } finally {
      await h.close();
    }
  });

  test('output before identity fails the turn and the sidecar is told to cancel it', async () => {
    const h = harness();
    try {
      const { turnId } = await h.session.postTurn({ prompt: 'x' });
      h.emit('assistant_delta', { turnId, messageId: 'm', content: 'hi', snapshot: 'hi' });
      await until(() => h.requestsOf('cancel').length === 1, 'the cancel');
      assert.equal(h.ledger.turn(turnId)?.error?.code, 'identity_violation');
      assert.ok(h.logger.records.some((record) => record.fields.event === 'session.identity_violation'));
      assert.equal(h.requestsOf('cancel')[0]?.payload.turnId, turnId);
    } finally {
      await h.close();
    }
  });

  test('a tool past the limit is reported and its turn canceled', async () => {
    const h = harness(defaultHandler, { toolTimeoutMs: 40 });
    try {
      const { turnId } = await h.session.postTurn({ prompt: 'x' });
      h.emit('provider_turn_identity_resolved', { turnId, providerTurnId: 'p1' });
      h.emit('tool_started', {
        turnId,
        toolCallId: 'slow-tool',
        callId: 'slow-tool',
        toolName: 'Bash',
        callType: 'command',
        name: 'Bash',
        status: 'streaming',
        input: {},
        locations: [],
        metadata: { adapter: 'claude-agent-sdk', toolName: 'Bash' },
      });
      await until(() => h.requestsOf('cancel').length === 1, 'the cancel');
      assert.deepEqual(
        h.ledger.of('tool_timeout', turnId).map((entry) => entry.detail),
        ['slow-tool'],
      );
    } finally {
      await h.close();
    }
  });
});

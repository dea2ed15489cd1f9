import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SidecarRequest } from '@outrigger/protocol';
import { HostError } from '../hostError.ts';
import { defaultHandler, type FakeHandler } from '../sidecar/fakeSidecarConnection.ts';
import { testSession, testTurn } from '../store/testRecords.ts';
import { decideEdit, decideRun, mustWait, nextQueued, pausesOnCancel } from './promptQueue.ts';
import { FakeLedger } from './testing/fakeLedger.ts';
import { sessionHarness } from './testing/sessionHarness.ts';

/* *Stop must stop*: the prompt queue's state machine, over a real SidecarSupervisor, a scripted sidecar and an in-memory ledger. */

const BUDGETS = { interruptTimeoutMs: 1_000, drainTimeoutMs: 1_000 };

/** A sidecar whose cancel ends the turn (identity, then `turn_canceled`, then the answer), as the real one does. */
const cancelEndsTheTurn: FakeHandler = (request, fake) => {
  if (request.type !== 'cancel') return defaultHandler(request);
  const turnId = String(request.payload.turnId);
  fake.emit('provider_turn_identity_resolved', { agentSessionId: 's1', turnId, providerTurnId: `p-${turnId}` });
  fake.emit('turn_canceled', { agentSessionId: 's1', turnId, providerTurnId: `p-${turnId}` });
  return {
    ok: { canceled: true, disposition: 'provider_active', turnId, providerTurnId: `p-${turnId}`, dispatchPhase: 'x' },
  };
};

function harness(ledger = new FakeLedger(testSession('s1')), handler: FakeHandler = cancelEndsTheTurn) {
  const { session, sidecars, close } = sessionHarness({ ledger, handler });
  const execs = (): string[] =>
    sidecars.flatMap((fake) =>
      fake.requests.filter((r: SidecarRequest) => r.type === 'exec').map((r) => String(r.payload.turnId)),
    );
  const execPrompts = (): string[] =>
    sidecars.flatMap((fake) =>
      fake.requests.filter((r: SidecarRequest) => r.type === 'exec').map((r) => String(r.payload.prompt)),
    );
  const complete = async (turnId: string) => {
    const fake = sidecars.at(-1)!;
    fake.emit('provider_turn_identity_resolved', { agentSessionId: 's1', turnId, providerTurnId: `p-${turnId}` });
    fake.emit('turn_completed', {
      agentSessionId: 's1',
      turnId,
      providerTurnId: `p-${turnId}`,
      stopReason: 'end_turn',
    });
    await until(() => ledger.turn(turnId)?.status === 'completed', `${turnId} completed`);
    await session.queue.drained();
  };
  const status = (turnId: string) => ledger.turn(turnId)?.status;
  const paused = () => ledger.queuedTurns().map((turn) => [turn.prompt, turn.paused] as const);
  return { ledger, session, execs, execPrompts, complete, status, paused, close };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 3_000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function rejectsWith(code: string) {
  return (error: unknown) => {
    assert.ok(error instanceof HostError, String(error));
    assert.equal(error.code, code, error.message);
    return true;
  };
}

/** A running turn with two prompts queued behind it, stopped by the user. */
async function stoppedWithTwoQueued(h: ReturnType<typeof harness>) {
  const running = await h.session.postTurn({ prompt: 'slow', clientMessageId: 'c-0' });
  const b = await h.session.postTurn({ prompt: 'bee', clientMessageId: 'c-b' });
  const c = await h.session.postTurn({ prompt: 'sea', clientMessageId: 'c-c' });
  const answer = await h.session.cancelTurn(running.turnId, BUDGETS);
  assert.equal(answer.disposition, 'provider_active');
  await h.session.queue.drained();
  return { running: running.turnId, b: b.turnId, c: c.turnId };
}

describe('the prompt queue: Stop must stop', () => {
  test('Stop with two prompts queued starts neither: both stay queued, paused, in order, with their ids', async () => {
    const h = harness();
    try {
      const { running, b, c } = await stoppedWithTwoQueued(h);
      assert.equal(h.status(running), 'canceled');
      assert.deepEqual(h.execs(), [running], 'nothing started after the stop');
      assert.deepEqual(h.paused(), [
        ['bee', true],
        ['sea', true],
      ]);
      assert.deepEqual(
        h.ledger.queuedTurns().map((turn) => [turn.id, turn.clientMessageId]),
        [
          [b, 'c-b'],
          [c, 'c-c'],
        ],
      );
      const kinds = h.ledger.commands.map((command) => command.type);
      assert.ok(kinds.indexOf('pauseQueue') >= 0, 'the queue was paused');
      assert.equal(h.ledger.runningUserTurn(), undefined);
      // A replay of an accepted prompt still answers it as queued, and adds nothing.
      const replay = await h.session.postTurn({ prompt: 'bee', clientMessageId: 'c-b' });
      assert.deepEqual(replay, { turnId: b, queued: true, steered: false, replayed: true });
      assert.equal(h.ledger.queuedTurns().length, 2);
    } finally {
      await h.close();
    }
  });

  test('a Stop with nothing queued pauses nothing; what is sent next runs at once', async () => {
    const h = harness();
    try {
      const first = await h.session.postTurn({ prompt: 'one' });
      await h.session.cancelTurn(first.turnId, BUDGETS);
      await h.session.queue.drained();
      assert.ok(!h.ledger.commands.some((command) => command.type === 'pauseQueue'));
      const next = await h.session.postTurn({ prompt: 'two' });
      assert.equal(next.queued, false);
      assert.deepEqual(h.execs(), [first.turnId, next.turnId]);
    } finally {
      await h.close();
    }
  });

  test('Run now starts that prompt only; a retry starts nothing; while another turn runs it is a conflict', async () => {
    const h = harness();
    try {
      const { b, c } = await stoppedWithTwoQueued(h);
      assert.deepEqual(await h.session.runQueuedTurn(c), { turnId: c, started: true });
      assert.equal(h.status(c), 'running');
      assert.deepEqual(h.paused(), [['bee', true]], 'the other stays paused');
      assert.deepEqual(await h.session.runQueuedTurn(c), { turnId: c, started: false }, 'a retry');
      await assert.rejects(h.session.runQueuedTurn(b), rejectsWith('conflict'));
      await h.complete(c);
      assert.equal(h.status(b), 'queued', 'the end of the run-now turn does not start the paused one');
      await assert.rejects(h.session.runQueuedTurn(c), rejectsWith('conflict'), 'it ran');
      await assert.rejects(h.session.runQueuedTurn('nope'), rejectsWith('not_found'));
      assert.equal(h.execs().filter((id) => id === c).length, 1, 'nothing ran twice');
    } finally {
      await h.close();
    }
  });

  test('Edit replaces the text of a paused prompt, keeps its place and id; the new text is what runs', async () => {
    const h = harness();
    try {
      const { b, c } = await stoppedWithTwoQueued(h);
      const edited = await h.session.editQueuedTurn(b, 'bee, but better');
      assert.deepEqual(
        {
          turnId: edited.turnId,
          prompt: edited.prompt,
          clientMessageId: edited.clientMessageId,
          paused: edited.paused,
        },
        { turnId: b, prompt: 'bee, but better', clientMessageId: 'c-b', paused: true },
      );
      assert.deepEqual(
        h.ledger.queuedTurns().map((turn) => turn.id),
        [b, c],
      );
      await assert.rejects(h.session.editQueuedTurn(b, '  '), rejectsWith('validation_failed'));
      await assert.rejects(h.session.editQueuedTurn('nope', 'x'), rejectsWith('not_found'));
      await h.session.runQueuedTurn(b);
      assert.equal(h.execPrompts().at(-1), 'bee, but better');
      await assert.rejects(h.session.editQueuedTurn(b, 'too late'), rejectsWith('conflict'));
    } finally {
      await h.close();
    }
  });

  test('Remove withdraws a paused prompt (pre_accept) and leaves the other paused', async () => {
    const h = harness();
    try {
      const { b, c } = await stoppedWithTwoQueued(h);
      const removed = await h.session.cancelTurn(b, BUDGETS);
      assert.equal(removed.disposition, 'pre_accept');
      assert.equal(h.status(b), 'canceled');
      assert.deepEqual(h.paused(), [['sea', true]]);
      assert.equal(h.status(c), 'queued');
      assert.equal(h.execs().length, 1);
    } finally {
      await h.close();
    }
  });

  test('Resume runs the paused prompts in order, one after the other', async () => {
    const h = harness();
    try {
      const { running, b, c } = await stoppedWithTwoQueued(h);
      const resumed = await h.session.unpauseQueue();
      assert.equal(resumed.startedTurnId, b);
      assert.deepEqual(
        resumed.queuedPrompts.map((prompt) => [prompt.turnId, prompt.paused]),
        [[c, false]],
      );
      await h.complete(b);
      assert.equal(h.status(c), 'running');
      await h.complete(c);
      assert.deepEqual(h.execs(), [running, b, c]);
      const idle = await h.session.unpauseQueue();
      assert.deepEqual(idle, { startedTurnId: null, queuedPrompts: [] }, 'resuming an empty queue is harmless');
    } finally {
      await h.close();
    }
  });

  test('a new send while paused runs at once; the paused prompts stay paused after it', async () => {
    const h = harness();
    try {
      const { b, c } = await stoppedWithTwoQueued(h);
      const sent = await h.session.postTurn({ prompt: 'instead' });
      assert.equal(sent.queued, false);
      assert.equal(h.status(sent.turnId), 'running');
      // Sent while that runs: it waits behind it, ahead of the paused ones, and is not paused itself.
      const follow = await h.session.postTurn({ prompt: 'and then' });
      assert.equal(follow.queued, true);
      await h.complete(sent.turnId);
      assert.equal(h.status(follow.turnId), 'running', 'the unpaused follow-up goes first');
      await h.complete(follow.turnId);
      assert.equal(h.status(b), 'queued');
      assert.equal(h.status(c), 'queued');
      assert.deepEqual(h.paused(), [
        ['bee', true],
        ['sea', true],
      ]);
    } finally {
      await h.close();
    }
  });

  test('a stop while paused prompts and a new one wait pauses the new one too', async () => {
    const h = harness();
    try {
      const { b } = await stoppedWithTwoQueued(h);
      const sent = await h.session.postTurn({ prompt: 'instead' });
      const follow = await h.session.postTurn({ prompt: 'and then' });
      await h.session.cancelTurn(sent.turnId, BUDGETS);
      await h.session.queue.drained();
      assert.equal(h.status(follow.turnId), 'queued');
      assert.deepEqual(
        h.paused().map(([, paused]) => paused),
        [true, true, true],
      );
      assert.equal(h.ledger.queuedTurns()[0]?.id, b, 'the order is the order they were sent in');
    } finally {
      await h.close();
    }
  });

  test('after a restart the paused prompts stay paused; the unpaused ones run', async () => {
    const first = harness();
    let ledger: FakeLedger;
    let b: string;
    try {
      ({ b } = await stoppedWithTwoQueued(first));
      ledger = first.ledger;
    } finally {
      await first.close();
    }
    const again = harness(ledger);
    try {
      await again.session.recover();
      await again.session.resumeQueue();
      await again.session.queue.drained();
      assert.deepEqual(again.execs(), [], 'nothing started on the new host');
      assert.deepEqual(again.paused(), [
        ['bee', true],
        ['sea', true],
      ]);
      const resumed = await again.session.unpauseQueue();
      assert.equal(resumed.startedTurnId, b);
      assert.deepEqual(again.execPrompts(), ['bee']);
    } finally {
      await again.close();
    }
  });

  test('a sidecar that cannot start: Run now and Resume are a 503 and the prompts stay paused', async () => {
    const ledger = new FakeLedger(testSession('s1'));
    ledger.turns.set('q1', testTurn('s1', 'q1', 0, { status: 'queued', startedAt: null, paused: true }));
    ledger.session = { ...ledger.session, queuePaused: true };
    const h = harness(ledger, (request) =>
      request.type === 'start' ? { error: 'Claude Code executable not found' } : defaultHandler(request),
    );
    try {
      await assert.rejects(h.session.runQueuedTurn('q1'), rejectsWith('sidecar_unavailable'));
      await assert.rejects(h.session.unpauseQueue(), rejectsWith('sidecar_unavailable'));
      assert.deepEqual(h.paused(), [['prompt 0', true]]);
      assert.equal(h.execs().length, 0);
    } finally {
      await h.close();
    }
  });

  test('a closed session refuses Run now, Edit and Resume', async () => {
    const h = harness();
    try {
      await stoppedWithTwoQueued(h);
      const queued = h.ledger.queuedTurns()[0]!.id;
      await h.session.close();
      await assert.rejects(h.session.runQueuedTurn(queued), rejectsWith('session_closed'));
      await assert.rejects(h.session.editQueuedTurn(queued, 'x'), rejectsWith('session_closed'));
      await assert.rejects(h.session.unpauseQueue(), rejectsWith('session_closed'));
    } finally {
      await h.close();
    }
  });
});

describe('the prompt queue decisions', () => {
  const queued = (id: string, ordinal: number, paused: boolean) =>
    testTurn('s1', id, ordinal, { status: 'queued', startedAt: null, paused });
  const running = testTurn('s1', 'r', 0);

  test('the next prompt is the first that is not paused; a new prompt waits only behind something that starts', () => {
    assert.equal(nextQueued([queued('a', 1, true), queued('b', 2, false)])?.id, 'b');
    assert.equal(nextQueued([queued('a', 1, true)]), undefined);
    assert.equal(mustWait(undefined, [queued('a', 1, true)]), false, 'paused prompts do not hold a new one back');
    assert.equal(mustWait(undefined, [queued('a', 1, false)]), true);
    assert.equal(mustWait(running, []), true);
  });

  test('only the stop of a running turn with prompts that would start pauses', () => {
    assert.equal(pausesOnCancel(running, [queued('a', 1, false)]), true);
    assert.equal(pausesOnCancel(running, [queued('a', 1, true)]), false);
    assert.equal(pausesOnCancel(running, []), false);
    assert.equal(pausesOnCancel(queued('a', 1, false), [queued('b', 2, false)]), false, 'a removal pauses nothing');
  });

  test('run and edit say why they cannot', () => {
    assert.equal(decideRun(queued('a', 1, true), undefined).kind, 'start');
    assert.equal(decideRun(queued('a', 1, true), running).kind, 'conflict');
    assert.equal(decideRun(running, running).kind, 'running');
    assert.equal(decideRun(testTurn('s1', 'x', 3, { status: 'completed' }), undefined).kind, 'conflict');
    assert.equal(decideRun(undefined, undefined).kind, 'missing');
    assert.equal(decideEdit(queued('a', 1, false), 'new').kind, 'edit');
    assert.equal(decideEdit(queued('a', 1, false), ' ').kind, 'invalid');
    const withImage = {
      ...queued('a', 1, false),
      input: [{ type: 'image' as const, attachmentId: 'i', mediaType: 'image/png' as const }],
    };
    assert.equal(decideEdit(withImage, '').kind, 'edit', 'an image keeps a prompt without text');
    assert.equal(decideEdit(running, 'new').kind, 'conflict');
  });
});

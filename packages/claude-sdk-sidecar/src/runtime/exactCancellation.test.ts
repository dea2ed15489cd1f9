import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CancelPayload, EmitEvent } from '@outrigger/protocol';
import { withDiagnosticSinkForTest } from '../diagnostics/diagnosticLine.ts';
import type { FakeClaudeQuery } from '../testing/fakeClaudeQuery.ts';
import { consumingFakeGeneration } from '../testing/fakeGeneration.ts';
import { canceledBeforeAcceptance, canceledInProvider } from '../testing/sessionRuntimeHarness.ts';
import { cancelExactTurn, type ExactCancellationHost } from './exactCancellation.ts';
import { GenerationLifecycle } from './generationLifecycle.ts';
import { TurnLifecycle } from './turnLifecycle.ts';

/** The procedure over real turns and generations; the host's own fencing is recorded. */
function rig(options: { queuedGoal?: string; closed?: boolean } = {}) {
  const log: string[] = [];
  const emit: EmitEvent = (type, payload) => log.push(`${type}:${(payload as { turnId?: string }).turnId}`);
  const turns = new TurnLifecycle(emit);
  const queries: FakeClaudeQuery[] = [];
  const generations = new GenerationLifecycle({
    create: (id) => {
      const { generation, query } = consumingFakeGeneration(id);
      queries.push(query);
      return generation;
    },
    idleTtlMs: 60_000,
    closeDrainTimeoutMs: 1_000,
    turnsIdle: () => turns.idle,
    hasBackgroundWork: () => false,
  });
  const host: ExactCancellationHost = {
    agentSessionId: 's1',
    providerSessionId: 'provider-1',
    closed: options.closed ?? false,
    turns,
    generations,
    withdrawQueuedGoal: (turnId) => turnId === options.queuedGoal,
    fenceCanceledGeneration: () => log.push(`fenced; Query calls so far: ${queries[0]?.calls.join(',') || 'none'}`),
  };
  /** Enqueues a turn and hands it to the live generation, as a dispatch does. */
  const dispatched = (turnId: string) => {
    const turn = turns.enqueue({ turnId, correlationId: `corr-${turnId}` });
    turn.generationId = generations.ensure().id;
    turn.phase = 'dispatched';
    return turn;
  };
  const cancel = (turnId: string) => {
    const payload: CancelPayload = { agentSessionId: 's1', turnId, interruptTimeoutMs: 100, drainTimeoutMs: 100 };
    return withDiagnosticSinkForTest(() => cancelExactTurn(host, payload, { requestId: 'r1' }));
  };
  return { log, turns, generations, queries, dispatched, cancel };
}

test('a dispatched turn: fence, then interrupt and close, and only then the terminals of every turn it held', async () => {
  const r = rig();
  const first = r.dispatched('t1');
  r.turns.bindIdentity(first, 'provider-turn-1');
  r.turns.activate(first);
  r.dispatched('t2');
  const generation = r.generations.current;
  const result = await r.cancel('t1');
  assert.deepEqual(result, canceledInProvider('t1', 'provider-turn-1', 'identity_resolved'));
  assert.deepEqual(r.queries[0]?.calls, ['interrupt', 'close']);
  const fencedAt = r.log.findIndex((line) => line.startsWith('fenced'));
  assert.equal(r.log[fencedAt], 'fenced; Query calls so far: none', 'fenced before the Query was touched');
  assert.deepEqual(
    r.log.filter((line) => line.startsWith('turn_canceled')),
    ['turn_canceled:t1', 'turn_canceled:t2'],
  );
  assert.ok(r.log.indexOf('turn_canceled:t1') > fencedAt);
  assert.ok(generation?.revoked, 'the generation is out of service');
  assert.equal(r.generations.current, undefined);
});

test('a turn never handed to Claude Code ends here without touching the Query', async () => {
  const r = rig();
  r.dispatched('t1');
  r.turns.enqueue({ turnId: 't2', correlationId: 'corr-t2' });
  const result = await r.cancel('t2');
  assert.deepEqual(
    { canceled: result.canceled, disposition: result.disposition, phase: result.dispatchPhase },
    { canceled: true, disposition: 'pre_accept', phase: 'queued' },
  );
  assert.deepEqual(r.queries[0]?.calls, []);
  assert.ok(r.generations.current, 'the Query keeps serving t1');
});

test('a Goal command still waiting for its batch is withdrawn locally', async () => {
  const r = rig({ queuedGoal: 'goal-1' });
  const result = await r.cancel('goal-1');
  assert.deepEqual(result, canceledBeforeAcceptance('goal-1', 'pending_goal', 'query goes on'));
});

test('a bound turn whose Query is gone reports provider_state_lost and stays running', async () => {
  const r = rig();
  const turn = r.dispatched('t1');
  r.turns.bindIdentity(turn, 'provider-turn-1');
  const generation = r.generations.current;
  assert.ok(generation);
  r.generations.release(generation);
  const result = await r.cancel('t1');
  assert.equal(result.disposition, 'provider_state_lost');
  assert.equal(result.canceled, false);
  assert.equal(turn.settled, false);
  assert.equal(turn.canceling, false, 'the cancellation was released');
});

test('a closed session or an unknown turn is absent', async () => {
  assert.equal((await rig({ closed: true }).cancel('t1')).disposition, 'absent');
  assert.equal((await rig().cancel('t9')).disposition, 'absent');
});

test('a settled root turn whose synthetic continuation runs owns it: the cancel retires the Query and ends the continuation once', async () => {
  const r = rig();
  const root = r.dispatched('t1');
  r.turns.bindIdentity(root, 'provider-turn-1');
  r.turns.activate(root);
  r.turns.settle(root, { type: 'turn_completed', stopReason: 'end_turn' });
  const continuation = r.turns.openSynthetic(r.generations.current?.id);
  const result = await r.cancel('t1');
  assert.deepEqual(result, canceledInProvider('t1', 'provider-turn-1', 'terminal'));
  assert.deepEqual(r.queries[0]?.calls, ['interrupt', 'close']);
  assert.deepEqual(
    r.log.filter((line) => /^turn_(completed|canceled)/.test(line)),
    ['turn_completed:t1', `turn_canceled:${continuation.turnId}`],
    'the root keeps its one terminal, the continuation gets its own',
  );
  assert.equal(r.generations.current, undefined);
  assert.equal((await r.cancel('t1')).disposition, 'absent', 'asked again: nothing of t1 runs any more');
});

test('a stale turn id that settled and owns nothing is absent, even while a later turn runs', async () => {
  const r = rig();
  const first = r.dispatched('t1');
  r.turns.activate(first);
  r.turns.settle(first, { type: 'turn_completed', stopReason: 'end_turn' });
  const second = r.dispatched('t2');
  r.turns.activate(second);
  const result = await r.cancel('t1');
  assert.deepEqual(
    { canceled: result.canceled, disposition: result.disposition },
    { canceled: false, disposition: 'absent' },
  );
  assert.deepEqual(r.queries[0]?.calls, [], 'the running turn t2 and its Query are not touched');
  assert.equal(second.canceling, false);
  assert.equal((await r.cancel('never-seen')).disposition, 'mismatch', 'an unknown id still names the wrong turn');
});

test('a synthetic continuation of a later root turn is not owned by an earlier one', async () => {
  const r = rig();
  for (const turnId of ['t1', 't2']) {
    const turn = r.dispatched(turnId);
    r.turns.activate(turn);
    r.turns.settle(turn, { type: 'turn_completed', stopReason: 'end_turn' });
  }
  const continuation = r.turns.openSynthetic(r.generations.current?.id);
  assert.equal((await r.cancel('t1')).disposition, 'absent');
  assert.equal(continuation.settled, false);
  assert.deepEqual(r.queries[0]?.calls, []);
});

test('a dispatched turn without identity whose Query is gone ends with one turn_canceled and says pre_accept', async () => {
  const r = rig();
  const turn = r.dispatched('t1');
  const generation = r.generations.current;
  assert.ok(generation);
  r.generations.release(generation);
  const result = await r.cancel('t1');
  assert.deepEqual(result, canceledBeforeAcceptance('t1', 'dispatched', 'query goes on'));
  assert.equal(turn.settled, true);
  assert.deepEqual(
    r.log.filter((line) => line.startsWith('turn_canceled')),
    ['turn_canceled:t1'],
  );
});

test('a canceled turn that settled some other way during the shutdown raises the lost-turn error', async () => {
  const r = rig();
  const turn = r.dispatched('t1');
  r.turns.bindIdentity(turn, 'provider-turn-1');
  r.turns.activate(turn);
  const answer = r.cancel('t1');
  assert.equal(turn.canceling, true, 'precondition: the shutdown is under way');
  r.turns.settle(turn, { type: 'turn_failed', error: 'Claude SDK session closed' });
  await assert.rejects(answer, { message: 'Claude SDK lost canceled Query turn t1' });
  assert.deepEqual(
    r.log.filter((line) => /^turn_/.test(line)),
    ['turn_failed:t1'],
    'no second terminal',
  );
});

/** t1 runs (bound, active) and t2's prompt waits behind it in the same Query. */
function queuedBehindRunningTurn(r: ReturnType<typeof rig>) {
  const running = r.dispatched('t1');
  r.turns.bindIdentity(running, 'provider-turn-1');
  r.turns.activate(running);
  const queued = r.dispatched('t2');
  const query = r.queries[0];
  assert.ok(query);
  return { running, queued, query };
}

test('a prompt queued behind a running turn is withdrawn: only its turn ends, the Query and the running turn go on', async () => {
  const r = rig();
  const { running, query } = queuedBehindRunningTurn(r);
  query.answerWithdrawals(true);
  const generation = r.generations.current;
  const result = await r.cancel('t2');
  assert.deepEqual(result, canceledBeforeAcceptance('t2', 'dispatched', 'query goes on'));
  assert.deepEqual(query.calls, ['cancelAsyncMessage:corr-t2'], 'withdrawn by its correlation uuid, nothing else');
  assert.deepEqual(
    r.log.filter((line) => /^(turn_|fenced)/.test(line)),
    ['turn_canceled:t2'],
    'one terminal, and nothing of the session is fenced',
  );
  assert.equal(r.generations.current, generation, 'the Query stays in service');
  assert.deepEqual(
    { active: running.active, settled: running.settled, canceling: running.canceling },
    { active: true, settled: false, canceling: false },
  );
  assert.equal((await r.cancel('t2')).disposition, 'absent', 'asked again: it already ended');
});

for (const [label, answer] of [
  ['refuses (the prompt had started)', false],
  ['fails', new Error('control request failed')],
  ['does not answer within the interrupt budget', 'hang'],
] as const) {
  test(`a withdrawal Claude Code ${label} falls back to retiring the generation: every turn of it ends once`, async () => {
    const r = rig();
    const { query } = queuedBehindRunningTurn(r);
    query.answerWithdrawals(answer);
    const result = await r.cancel('t2');
    assert.deepEqual(result, canceledBeforeAcceptance('t2', 'dispatched', 'query retired'));
    assert.deepEqual(query.calls, ['cancelAsyncMessage:corr-t2', 'interrupt', 'close']);
    assert.deepEqual(
      r.log.filter((line) => line.startsWith('turn_')),
      ['turn_canceled:t1', 'turn_canceled:t2'],
    );
    assert.equal(r.generations.current, undefined);
  });
}

test('a prompt with no running turn ahead of it is not withdrawn: Claude Code starts it next', async () => {
  const r = rig();
  r.dispatched('t1');
  const query = r.queries[0];
  assert.ok(query);
  query.answerWithdrawals(true);
  assert.deepEqual(await r.cancel('t1'), canceledBeforeAcceptance('t1', 'dispatched', 'query retired'));
  assert.deepEqual(query.calls, ['interrupt', 'close']);
});

test('a prompt whose echo arrived while Claude Code was asked is not taken as withdrawn, whatever the answer', async () => {
  const r = rig();
  const { running, queued, query } = queuedBehindRunningTurn(r);
  query.cancelAsyncMessage = async () => {
    // Meanwhile the running turn ended and the queued prompt started: its turn was activated.
    r.turns.settle(running, { type: 'turn_completed', stopReason: 'end_turn' });
    r.turns.activate(queued);
    return true;
  };
  const result = await r.cancel('t2');
  assert.deepEqual(result, canceledBeforeAcceptance('t2', 'dispatched', 'query retired'));
  assert.deepEqual(query.calls, ['interrupt', 'close'], 'the generation was retired');
  assert.deepEqual(
    r.log.filter((line) => line.startsWith('turn_')),
    ['turn_completed:t1', 'turn_canceled:t2'],
  );
});

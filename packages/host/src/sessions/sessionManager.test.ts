import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pollUntil, processGroupMembers } from '@outrigger/claude-sdk-sidecar/testing';
import { hostLimits, type SessionSummary } from '@outrigger/host-api';
import { HostError } from '../hostError.ts';
import { recordingLogger } from '../logging/runtimeLogger.ts';
import { spawnSidecarConnection } from '../sidecar/sidecarConnection.ts';
import { SidecarSupervisor } from '../sidecar/sidecarSupervisor.ts';
import type { HostStoreReader } from '../store/hostStore.ts';
import type { SessionRecord } from '../store/records.ts';
import { type EventStreams, type HostViews, SessionManager } from './sessionManager.ts';
import { FakeLedgers } from './testing/fakeLedger.ts';

/*
 * The session manager over the real sidecar process in test-driver mode (scripted sessions, no Claude
 * Code): session creation, routing, interactions, a sidecar death, a restart over the same ledgers, close.
 */

const DRIVER_ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', TUTTI_CLAUDE_SDK_SIDECAR_TEST_DRIVER: '1' };

let root: string;
let work: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'outrigger-manager-'));
  work = join(root, 'work');
  await mkdir(work);
  await mkdir(join(root, 'outside'));
});
after(() => rm(root, { recursive: true, force: true }));

const views = {
  summary: (session: SessionRecord) => ({ id: session.id, title: session.title }) as unknown as SessionSummary,
  detail: (session: SessionRecord) => session,
} as unknown as HostViews;

function openManager(ledgers: FakeLedgers, options: { allowRoots?: string[] } = {}) {
  const logger = recordingLogger();
  const supervisor = new SidecarSupervisor({
    logger,
    exitReportGraceMs: 200,
    spawn: () => spawnSidecarConnection({ env: DRIVER_ENV }),
  });
  let shutdowns = 0;
  const streams: EventStreams = {
    openSessionStream: () => {
      throw new Error('not in this test');
    },
    openHostStream: () => {
      throw new Error('not in this test');
    },
    shutdown: () => {
      shutdowns += 1;
    },
  };
  const manager = SessionManager.open({
    store: ledgers.store as unknown as HostStoreReader & { close(): Promise<void> },
    streams,
    ledgers,
    views,
    supervisor,
    logger,
    info: {
      version: '0',
      modelBackend: 'demo',
      modelBackendReason: 'test',
      defaultCwd: work,
      allowRoots: [],
      limits: { ...hostLimits },
    },
    allowRoots: options.allowRoots ?? [],
  });
  return { manager, supervisor, logger, shutdowns: () => shutdowns };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  await pollUntil(() => (condition() ? true : undefined), what, 10_000);
}

function rejectsWith(code: string) {
  return (error: unknown) => error instanceof HostError && error.code === code;
}

describe('SessionManager over the test-driver sidecar', () => {
  test('a bad cwd is refused before any sidecar exists', async () => {
    const ledgers = new FakeLedgers();
    const { manager, supervisor } = openManager(ledgers, { allowRoots: [work] });
    const service = await manager;
    try {
      await assert.rejects(service.createSession({ cwd: join(root, 'missing') }), rejectsWith('validation_failed'));
      await assert.rejects(service.createSession({ cwd: join(root, 'outside') }), rejectsWith('forbidden'));
      assert.equal(supervisor.pid, undefined, 'no sidecar was spawned for a refused session');
      assert.equal(ledgers.ledgers.size, 0);
    } finally {
      await service.close();
    }
  });

  test('create, run a turn, answer an approval once; a death fails the running turn; a restart recovers', async () => {
    const ledgers = new FakeLedgers();
    const first = openManager(ledgers);
    const service = await first.manager;
    let closed = false;
    try {
      const created = await service.createSession({ cwd: work, title: 'demo', effort: 'high' });
      const ledger = ledgers.ledgers.get(created.id)!;
      assert.equal(ledger.session.settings.effort, 'high');
      // session_started came before `start` answered: it was held until the row existed, then applied.
      await until(() => ledger.session.resumeCursor !== null, 'session_started applied');

      const echo = await service.postTurn(created.id, { prompt: 'hello' });
      await until(() => ledger.turn(echo.turnId)?.status === 'completed', 'the echo turn completes');
      assert.equal(ledger.of('done', echo.turnId).length, 1);

      const asking = await service.postTurn(created.id, { prompt: 'needs approval' });
      await until(() => ledger.interactions.size === 1, 'the approval is stored');
      const [interaction] = ledger.interactions.values();
      const allow = { action: 'allow', optionId: 'allow', payload: {} };
      const answered = await service.answerInteraction(created.id, interaction!.requestId, allow);
      assert.equal(answered.replayed, false);
      assert.equal((await service.answerInteraction(created.id, interaction!.requestId, allow)).replayed, true);
      await assert.rejects(
        service.answerInteraction(created.id, interaction!.requestId, {
          action: 'reject',
          optionId: 'reject',
          payload: {},
        }),
        rejectsWith('conflict'),
      );
      await until(() => ledger.turn(asking.turnId)?.status === 'completed', 'the approved turn completes');

      // A turn left waiting for a person when the sidecar dies ends at once, with the exit's message.
      const waiting = await service.postTurn(created.id, { prompt: 'approval again' });
      await until(() => ledger.interactions.size === 2, 'the second approval');
      const queued = await service.postTurn(created.id, { prompt: 'behind it' });
      assert.equal(queued.queued, true);
      const pid = first.supervisor.pid!;
      process.kill(pid, 'SIGKILL');
      await until(() => ledger.turn(waiting.turnId)?.status === 'failed', 'the waiting turn fails');
      assert.equal(ledger.turn(waiting.turnId)?.error?.code, 'sidecar_exited');
      assert.match(ledger.turn(waiting.turnId)?.error?.message ?? '', /^sidecar exited: /);
      await until(() => ledger.turn(queued.turnId)?.status === 'completed', 'the queued prompt ran on a new sidecar');
      assert.notEqual(first.supervisor.pid, pid);
      assert.deepEqual(processGroupMembers(pid), []);

      // A turn still waiting when the host "dies": a new manager over the same ledgers ends it.
      const stranded = await service.postTurn(created.id, { prompt: 'approval once more' });
      await until(() => ledger.interactions.size === 3, 'the third approval');
      const later = await service.postTurn(created.id, { prompt: 'after the restart' });
      await first.supervisor.close();
      closed = true;

      const second = openManager(ledgers);
      const restarted = await second.manager;
      try {
        assert.equal(ledger.turn(stranded.turnId)?.status, 'interrupted');
        assert.equal(ledger.of('done', stranded.turnId).length, 1);
        assert.equal(
          [...ledger.interactions.values()].find((item) => item.turnId === stranded.turnId)?.resolution,
          'host_restarted',
        );
        await until(
          () => ledger.turn(later.turnId)?.status === 'completed',
          'the queued prompt runs after the restart',
        );
      } finally {
        await restarted.close();
      }
      assert.equal(ledgers.store.closed, true);
    } finally {
      if (!closed) await service.close();
    }
  });

  test('close records what runs as interrupted, stops the sidecar and refuses new work', async () => {
    const ledgers = new FakeLedgers();
    const opened = openManager(ledgers);
    const service = await opened.manager;
    const created = await service.createSession({ cwd: work });
    const ledger = ledgers.ledgers.get(created.id)!;
    const waiting = await service.postTurn(created.id, { prompt: 'approval please' });
    await until(() => ledger.interactions.size === 1, 'the approval');
    const pid = opened.supervisor.pid!;
    await service.close();
    assert.equal(ledger.turn(waiting.turnId)?.status, 'interrupted');
    assert.equal(ledger.of('done', waiting.turnId).length, 1, 'the sidecar closing the session adds no second end');
    assert.deepEqual(processGroupMembers(pid), []);
    assert.equal(opened.shutdowns(), 1);
    await assert.rejects(service.postTurn(created.id, { prompt: 'x' }), rejectsWith('sidecar_unavailable'));
    await assert.rejects(service.createSession({ cwd: work }), rejectsWith('sidecar_unavailable'));
  });

  test('unknown sessions, turns and tasks are not_found; an SDK task is not edited by hand', async () => {
    const ledgers = new FakeLedgers();
    const service = await openManager(ledgers).manager;
    try {
      await assert.rejects(service.postTurn('nope', { prompt: 'x' }), rejectsWith('not_found'));
      await assert.rejects(service.cancelTurn('nope', 't', {}), rejectsWith('not_found'));
      assert.throws(() => service.openSessionStream('nope', 0), rejectsWith('not_found'));
      await assert.rejects(service.sessionLastSeq('nope'), rejectsWith('not_found'));
      await assert.rejects(service.updateTask('nope', { title: 'x' }), rejectsWith('not_found'));
      const created = await service.createSession({ cwd: work });
      await assert.rejects(service.cancelTurn(created.id, 'no-turn', {}), rejectsWith('not_found'));
      await assert.rejects(
        service.cancelTurn(created.id, 'no-turn', { drainTimeoutMs: 0 }),
        rejectsWith('validation_failed'),
      );
      const task = await service.createTask({ session_id: created.id, title: 'mine' });
      assert.equal((await service.updateTask(task.id, { status: 'completed' })).status, 'completed');
      ledgers.ledgers.get(created.id)!.tasks.set('sdk-x-0', { ...task, id: 'sdk-x-0', source: 'sdk' });
      await assert.rejects(service.deleteTask('sdk-x-0'), rejectsWith('conflict'));
    } finally {
      await service.close();
    }
  });
});

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type SessionEvent, sessionSnapshotSchema, type ToolUseBlock } from '@outrigger/host-api';
import type { SidecarEvent } from '@outrigger/protocol';
import { assertContractEvents, readFixture, replayFixture } from '../../test/fixtures/fixtureReplay.ts';
import { CommitPublisher } from '../events/commitPublisher.ts';
import { EventHub } from '../events/eventHub.ts';
import type { MessageRecord } from '../store/records.ts';
import { SqliteHostStore } from '../store/sqlite/sqliteHostStore.ts';
import { ProjectedSessionLedgers } from './projectedSessionLedger.ts';
import { sessionSnapshot } from './views.ts';

/*
 * The projection against what the REAL sidecar emitted (recorded by test/fixtures/sidecarRecorder.ts
 * from real Claude Code and mock-anthropic): each scenario replayed through the session ledger into a
 * real store, then the transcript, the turns and the event log checked.
 */

const turnIdOf = (event: SessionEvent): string | undefined =>
  'turnId' in event.data && typeof event.data.turnId === 'string' ? event.data.turnId : undefined;

function toolOf(row: MessageRecord): ToolUseBlock | undefined {
  const block = row.content[0];
  return block?.type === 'tool_use' ? block : undefined;
}

function resultsOf(row: MessageRecord) {
  return row.content.filter((block) => block.type === 'tool_result');
}

async function transcript(replayed: Awaited<ReturnType<typeof replayFixture>>): Promise<MessageRecord[]> {
  return [...(await replayed.store.listMessages(replayed.sessionId, { limit: 500 })).messages];
}

/** *One done per turn*, on the log: one `done` per turn; after it only the turn's background (subagent) work. */
function assertOneDonePerTurn(events: readonly SessionEvent[]): void {
  const turns = new Set(events.map(turnIdOf).filter((id): id is string => id !== undefined));
  for (const turnId of turns) {
    const ofTurn = events.filter((event) => turnIdOf(event) === turnId);
    const dones = ofTurn.filter((event) => event.type === 'done');
    assert.equal(dones.length, 1, `turn ${turnId} has exactly one done (${ofTurn.map((e) => e.type).join(', ')})`);
    const after = ofTurn.slice(ofTurn.indexOf(dones[0]!) + 1);
    for (const event of after) {
      const subagentWork =
        (event.type === 'tool_use' && event.data.tool.parentToolUseId !== null) ||
        event.type === 'tool_result' ||
        event.type === 'agent_task' ||
        event.type === 'background_tasks' ||
        event.type === 'usage';
      assert.ok(subagentWork, `after the done of ${turnId} only background work may follow, not ${event.type}`);
    }
  }
}

async function assertCommon(replayed: Awaited<ReturnType<typeof replayFixture>>): Promise<SessionEvent[]> {
  const events = await replayed.sessionEvents();
  assertContractEvents(events, await replayed.hostEvents());
  assertOneDonePerTurn(events);
  const seqs = events.map((event) => event.data.seq);
  assert.deepEqual(
    seqs,
    seqs.map((_, i) => i + 1),
    'the log is gapless from 1',
  );
  const records = await replayed.store.loadSessionSnapshot(replayed.sessionId, 100);
  sessionSnapshotSchema.parse(sessionSnapshot(records!));
  return events;
}

test('plain: thinking and a streamed answer become complete rows; usage, title and one done', async () => {
  const replayed = await replayFixture(readFixture('plain'));
  try {
    const events = await assertCommon(replayed);
    const rows = await transcript(replayed);
    assert.deepEqual(
      rows.map((row) => [row.role, row.status, row.content[0]?.type]),
      [
        ['user', 'complete', 'text'],
        ['assistant', 'complete', 'thinking'],
        ['assistant', 'complete', 'text'],
      ],
    );
    assert.deepEqual(rows[2]?.content, [{ type: 'text', text: 'Here is a plain answer, streamed in small pieces.' }]);
    const texts = events.filter((event) => event.type === 'text');
    assert.ok(texts.length >= 3, 'the deltas were published');
    assert.ok(texts.slice(0, -1).every((event) => event.type === 'text' && !event.data.final));
    assert.deepEqual(texts.at(-1)?.data, {
      ...texts.at(-1)!.data,
      final: true,
      text: 'Here is a plain answer, streamed in small pieces.',
    });
    const turn = await replayed.store.getTurn(replayed.sessionId, 'turn-plain-1');
    assert.equal(turn?.status, 'completed');
    assert.equal(turn?.stopReason, 'end_turn');
    assert.ok(turn?.providerTurnId, 'the binding was committed');
    assert.ok(turn?.checkpointMessageId, 'the checkpoint was stored');
    assert.deepEqual(turn?.usage, {
      inputTokens: 42,
      outputTokens: 17,
      cacheReadInputTokens: null,
      cacheCreationInputTokens: null,
      costUsd: null,
    });
    const session = replayed.ledger.session;
    assert.equal(session.status, 'idle');
    assert.equal(session.title, '[scenario:plain] Say something short.');
    assert.equal(session.titleSource, 'agent');
    assert.equal(session.effectiveModel, 'claude-opus-5-5');
    assert.equal(session.usage.totalCostUsd, null, 'an unknown cost stays null, never 0');
    assert.ok(session.usage.contextWindow !== null);
    assert.ok(session.resumeCursor !== null);
    assert.deepEqual(
      events.filter((event) => event.type === 'status').map((event) => event.type === 'status' && event.data.status),
      ['idle', 'running', 'idle'],
    );
    const done = events.find((event) => event.type === 'done');
    assert.deepEqual(done?.type === 'done' && [done.data.outcome, done.data.error], ['completed', null]);
  } finally {
    await replayed.close();
  }
});

test('todo: hook then canonical leave one result per TodoWrite, and the plan lands in tasks', async () => {
  const replayed = await replayFixture(readFixture('todo'));
  try {
    const events = await assertCommon(replayed);
    const tools = (await transcript(replayed)).filter((row) => toolOf(row)?.name === 'TodoWrite');
    assert.equal(tools.length, 2);
    for (const row of tools) {
      assert.deepEqual(
        resultsOf(row).map((result) => result.type === 'tool_result' && result.resultSource),
        ['canonical'],
        'exactly one result, the canonical one',
      );
      const sources = events.flatMap((event) =>
        event.type === 'tool_result' && event.data.tool_use_id === toolOf(row)?.id
          ? [event.data.result.resultSource]
          : [],
      );
      assert.deepEqual(sources, ['hook', 'canonical'], 'the log keeps both, in arrival order');
    }
    const tasks = await replayed.store.listTasks(replayed.sessionId);
    assert.deepEqual(
      tasks.map((task) => [task.id, task.title, task.status, task.description, task.source]),
      [
        ['sdk-fixture-todo-0', 'Read the code', 'completed', 'Reading the code', 'sdk'],
        ['sdk-fixture-todo-1', 'Write the test', 'in_progress', 'Writing the test', 'sdk'],
        ['sdk-fixture-todo-2', 'Ship it', 'pending', 'Shipping it', 'sdk'],
      ],
    );
    const updates = events.filter((event) => event.type === 'task_update');
    assert.equal(updates.length, 2);
    assert.deepEqual(updates[1]?.type === 'task_update' && updates[1].data.tasks, tasks);
  } finally {
    await replayed.close();
  }
});

test('bash-approval: the approval is stored, shown on both streams, answered once; status goes through needs_input', async () => {
  const replayed = await replayFixture(readFixture('bash-approval'));
  try {
    const events = await assertCommon(replayed);
    const [interaction, ...others] = await replayed.store.listInteractions({ sessionId: replayed.sessionId });
    assert.equal(others.length, 0);
    assert.equal(interaction?.kind, 'approval');
    assert.equal(interaction?.toolName, 'Bash');
    assert.equal(interaction?.status, 'answered');
    assert.deepEqual(interaction?.answer, { action: 'allow', optionId: 'allow', payload: {} });
    assert.equal(events.filter((event) => event.type === 'permission_request').length, 1);
    assert.equal(events.filter((event) => event.type === 'permission_resolved').length, 1, 'answered once');
    const host = await replayed.hostEvents();
    assert.deepEqual(
      host.filter((event) => event.type !== 'session').map((event) => event.type),
      ['permission_request', 'permission_resolved'],
    );
    assert.deepEqual(
      events.flatMap((event) => (event.type === 'status' ? [event.data.status] : [])),
      ['idle', 'running', 'needs_input', 'running', 'idle'],
    );
    const bash = (await transcript(replayed)).find((row) => toolOf(row)?.name === 'Bash');
    assert.equal(toolOf(bash!)?.status, 'completed');
    assert.deepEqual(
      resultsOf(bash!).map((result) => result.type === 'tool_result' && [result.content, result.resultSource]),
      [['made', 'canonical']],
    );
  } finally {
    await replayed.close();
  }
});

test('question: AskUserQuestion becomes a question interaction answered by question id', async () => {
  const replayed = await replayFixture(readFixture('question'));
  try {
    await assertCommon(replayed);
    const [interaction] = await replayed.store.listInteractions({ sessionId: replayed.sessionId });
    assert.equal(interaction?.kind, 'question');
    assert.equal(interaction?.status, 'answered');
    const answers = interaction?.answer?.payload.answersByQuestionId as Record<string, string>;
    assert.deepEqual(Object.values(answers), ['SQLite']);
    assert.equal(replayed.ledger.session.needsInputCount, 0);
  } finally {
    await replayed.close();
  }
});

test('cancel: the cut answer is kept as interrupted, then turn_canceled and done', async () => {
  const replayed = await replayFixture(readFixture('cancel'));
  try {
    const events = await assertCommon(replayed);
    const rows = await transcript(replayed);
    const answer = rows.find((row) => row.role === 'assistant');
    assert.equal(answer?.status, 'interrupted');
    assert.ok(answer?.content[0]?.type === 'text' && answer.content[0].text.startsWith('streaming'));
    const tail = events.slice(-4).map((event) => event.type);
    assert.deepEqual(tail, ['text', 'turn_canceled', 'done', 'status']);
    const interrupted = events.at(-4);
    assert.ok(interrupted?.type === 'text' && interrupted.data.final && interrupted.data.interrupted);
    const turn = await replayed.store.getTurn(replayed.sessionId, 'turn-cancel-1');
    assert.equal(turn?.status, 'canceled');
    assert.equal(replayed.ledger.session.status, 'idle');
  } finally {
    await replayed.close();
  }
});

test('agent: subagent work under the done root turn, one done each, the continuation its own turn', async () => {
  const replayed = await replayFixture(readFixture('agent'));
  try {
    const events = await assertCommon(replayed);
    const rows = await transcript(replayed);
    const agent = rows.find((row) => toolOf(row)?.name === 'Agent');
    assert.ok(agent);
    assert.equal(agent.turnId, 'turn-agent-1');
    assert.equal(toolOf(agent)?.agentTask?.status, 'completed');
    const sub = rows.find((row) => toolOf(row)?.parentToolUseId === toolOf(agent)?.id);
    assert.ok(sub, 'the subagent Bash call nests under the Agent call');
    assert.equal(sub.turnId, 'turn-agent-1', 'stored under the root turn');
    assert.equal(toolOf(sub)?.status, 'completed');
    assert.equal(resultsOf(sub).length, 1);
    const turns = await replayed.store.listTurns(replayed.sessionId);
    assert.deepEqual(
      turns.map((turn) => [turn.kind, turn.status, turn.stopReason]),
      [
        ['user', 'completed', 'end_turn'],
        ['synthetic', 'completed', 'background_agent_idle'],
      ],
    );
    const continuation = rows.filter((row) => row.turnId === turns[1]?.id);
    assert.deepEqual(
      continuation.map((row) => row.content[0]?.type === 'text' && row.content[0].text),
      ['The agent reported back: the work directory is listed.'],
    );
    const statuses = events.flatMap((event) => (event.type === 'status' ? [event.data.status] : []));
    assert.deepEqual(statuses.slice(0, 2), ['idle', 'running']);
    assert.equal(statuses.at(-1), 'idle');
    const rootDone = events.findIndex((event) => event.type === 'done' && event.data.turnId === 'turn-agent-1');
    const statusAfterRootDone = events.slice(rootDone).find((event) => event.type === 'status');
    assert.ok(
      statusAfterRootDone === undefined ||
        (statusAfterRootDone.type === 'status' && statusAfterRootDone.data.status === 'running'),
      'the session keeps running while the agent works on after the root turn',
    );
    assert.deepEqual(replayed.ledger.session.backgroundTasks, []);
    const background = events.filter((event) => event.type === 'background_tasks');
    assert.ok(background.length >= 2, 'the agent task was shown running, then gone');
  } finally {
    await replayed.close();
  }
});

test('edit: the Edit row carries the file change from its input and the structured patch from its result', async () => {
  const replayed = await replayFixture(readFixture('edit'));
  try {
    const events = await assertCommon(replayed);
    const edit = (await transcript(replayed)).find((row) => toolOf(row)?.name === 'Edit');
    const change = toolOf(edit!)?.fileChange;
    assert.ok(change);
    assert.ok(change.path.endsWith('/notes.txt'));
    assert.equal(change.operation, 'edit');
    assert.deepEqual(change.edits, [{ oldText: 'hello', newText: 'goodbye' }]);
    assert.deepEqual(change.structuredPatch, [
      { oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ['-hello world', '+goodbye world'] },
    ]);
    const published = events.filter(
      (event) =>
        event.type === 'tool_use' && event.data.tool.name === 'Edit' && event.data.tool.fileChange?.structuredPatch,
    );
    assert.equal(published.length, 1, 'the patch reached the stream once');
    const read = (await transcript(replayed)).find((row) => toolOf(row)?.name === 'Read');
    assert.equal(toolOf(read!)?.fileChange, null);
  } finally {
    await replayed.close();
  }
});

test('a projector rebuilt from the store mid-scenario ends exactly where an uninterrupted one does', async () => {
  for (const name of ['agent', 'todo', 'bash-approval'] as const) {
    const lines = readFixture(name);
    const whole = await replayFixture(lines);
    const expected = {
      rows: await transcript(whole),
      turns: await whole.store.listTurns(whole.sessionId),
      session: whole.ledger.session,
      events: (await whole.sessionEvents()).map((event) => event.type),
    };
    await whole.close();
    // Split right after the first turn's terminal: from then on, background work and late events go to a new projector.
    const cut = lines.findIndex((line) => line.type === 'turn_completed') + 1;
    const dir = mkdtempSync(join(tmpdir(), 'outrigger-rebuild-'));
    try {
      const path = join(dir, 'host.db');
      let clock = 1_000;
      const now = () => (clock += 10);
      const first = await replayFixture(lines.slice(0, cut), { path, now });
      await first.close();
      const store = SqliteHostStore.open({ path });
      const hub = new EventHub(store);
      const ledgers = new ProjectedSessionLedgers({ store, committer: new CommitPublisher(store, hub), now });
      const ledger = await ledgers.load(`fixture-${name}`);
      assert.ok(ledger);
      for (const line of lines.slice(cut)) {
        if (line.kind === 'event')
          await ledger.applySidecarEvent({ type: line.type, payload: line.payload } as SidecarEvent);
      }
      const sessionId = `fixture-${name}`;
      const strip = (rows: readonly MessageRecord[]) => rows.map(({ createdAt, updatedAt, ...row }) => row);
      assert.deepEqual(
        strip((await store.listMessages(sessionId, { limit: 500 })).messages),
        strip(expected.rows),
        `${name}: same transcript`,
      );
      assert.deepEqual(
        (await store.listTurns(sessionId)).map((turn) => [turn.id, turn.status, turn.providerTurnId]),
        expected.turns.map((turn) => [turn.id, turn.status, turn.providerTurnId]),
      );
      assert.equal(ledger.session.status, expected.session.status);
      assert.deepEqual(ledger.session.backgroundTasks, expected.session.backgroundTasks);
      assert.deepEqual(
        (await store.readSessionEvents(sessionId, 0, 100_000)).map((event) => event.type),
        expected.events,
        `${name}: the same events`,
      );
      hub.shutdown();
      await store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

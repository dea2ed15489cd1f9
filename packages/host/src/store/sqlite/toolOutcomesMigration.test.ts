import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { toolUseBlockSchema } from '@outrigger/host-api';
import { migrate } from './migrations.ts';

/*
 * Migration 7: tool rows written before `outcome`, `decision` and `elapsedSeconds` existed get them from
 * their result, their turn and their resolved interaction, so an old session reads like a new one.
 */

const S = 's-1';

function oldDatabase(): DatabaseSync {
  const db = new DatabaseSync(':memory:', { enableForeignKeyConstraints: false });
  migrate(db, { target: 6 });
  return db;
}

function turn(db: DatabaseSync, id: string, status: string): void {
  db.prepare(
    `INSERT INTO turns (session_id, id, ordinal, kind, status, input, created_at) VALUES (?, ?, ?, 'user', ?, '[]', 1)`,
  ).run(S, id, Number(id.replace(/\D/g, '')), status);
}

function toolRow(
  db: DatabaseSync,
  turnId: string,
  toolUseId: string,
  status: 'running' | 'completed' | 'failed',
  result?: { content: string; isError: boolean; source?: string },
): void {
  const tool = {
    type: 'tool_use',
    id: toolUseId,
    name: 'Bash',
    callType: 'command',
    input: { command: 'ls' },
    status,
    parentToolUseId: null,
    locations: [],
    fileChange: null,
    agentTask: null,
    background: null,
    output: null,
    startedAt: 1000,
    endedAt: status === 'running' ? null : 1623,
  };
  const content: unknown[] = [tool];
  if (result !== undefined) {
    content.push({
      type: 'tool_result',
      tool_use_id: toolUseId,
      content: result.content,
      is_error: result.isError,
      resultSource: result.source ?? 'canonical',
      truncated: false,
      length: result.content.length,
    });
  }
  const position = Number(db.prepare('SELECT count(*) AS n FROM messages').get()!.n);
  db.prepare(
    `INSERT INTO messages (session_id, id, turn_id, position, role, status, content, steer, tool_use_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'assistant', 'complete', ?, 0, ?, 1, 1)`,
  ).run(S, `m-${toolUseId}`, turnId, position, JSON.stringify(content), toolUseId);
}

function interaction(
  db: DatabaseSync,
  toolUseId: string,
  kind: string,
  status: string,
  answer: Record<string, unknown> | null,
  resolution: string | null,
): void {
  db.prepare(
    `INSERT INTO interactions (session_id, request_id, turn_id, kind, tool_name, tool_use_id, input, options, status, answer, resolution, created_at, resolved_at)
     VALUES (?, ?, 't1', ?, 'Bash', ?, '{}', '[]', ?, ?, ?, 10, 20)`,
  ).run(S, `r-${toolUseId}`, kind, toolUseId, status, answer === null ? null : JSON.stringify(answer), resolution);
}

function toolOf(db: DatabaseSync, toolUseId: string) {
  const row = db.prepare('SELECT content FROM messages WHERE tool_use_id = ?').get(toolUseId);
  return toolUseBlockSchema.parse(JSON.parse(String(row!.content))[0]);
}

test('migration 7: each old tool row gets its outcome and decision, and parses as a ToolUseBlock', () => {
  const db = oldDatabase();
  turn(db, 't1', 'completed');
  turn(db, 't2', 'canceled');
  toolRow(db, 't1', 'ok', 'completed', { content: 'fine', isError: false });
  toolRow(db, 't1', 'once', 'completed', { content: 'made', isError: false });
  interaction(db, 'once', 'approval', 'answered', { action: 'allow', optionId: 'allow', payload: {} }, 'answered');
  toolRow(db, 't1', 'session', 'completed', { content: 'made', isError: false });
  interaction(
    db,
    'session',
    'approval',
    'answered',
    { action: 'allow', optionId: 'allow_always', payload: {} },
    'answered',
  );
  toolRow(db, 't1', 'denied', 'failed', { content: 'not now', isError: true });
  interaction(
    db,
    'denied',
    'approval',
    'answered',
    { action: 'reject', optionId: 'reject', payload: { denyMessage: ' not now ' } },
    'answered',
  );
  toolRow(db, 't1', 'broken', 'failed', { content: 'exit 1', isError: true });
  toolRow(db, 't2', 'stopped', 'failed', {
    content: 'The tool call ended without a result: the turn was canceled.',
    isError: true,
    source: 'synthesized',
  });
  toolRow(db, 't1', 'asked', 'completed', { content: 'The user answered', isError: false });
  interaction(
    db,
    'asked',
    'question',
    'answered',
    { action: 'allow', optionId: 'allow', payload: { answersByQuestionId: { q: 'SQLite' } } },
    'answered',
  );
  toolRow(db, 't1', 'gone', 'failed', { content: 'ended', isError: true, source: 'synthesized' });
  interaction(db, 'gone', 'approval', 'superseded', null, 'host_restarted');
  toolRow(db, 't1', 'live', 'running');

  assert.deepEqual(migrate(db, { target: 7 }), [7]);

  assert.equal(toolOf(db, 'ok').outcome, 'completed');
  assert.equal(toolOf(db, 'ok').decision, null);
  assert.equal(toolOf(db, 'ok').elapsedSeconds, null);
  assert.equal(toolOf(db, 'once').decision?.choice, 'allowed_once');
  assert.equal(toolOf(db, 'session').decision?.choice, 'allowed_for_session');
  const denied = toolOf(db, 'denied');
  assert.equal(denied.outcome, 'denied');
  assert.equal(denied.decision?.choice, 'denied');
  assert.equal(denied.decision?.denyMessage, 'not now');
  assert.deepEqual(denied.decision?.answer, {
    action: 'reject',
    optionId: 'reject',
    payload: { denyMessage: ' not now ' },
  });
  assert.equal(toolOf(db, 'broken').outcome, 'failed');
  assert.equal(toolOf(db, 'stopped').outcome, 'canceled');
  const asked = toolOf(db, 'asked');
  assert.equal(asked.decision?.choice, 'answered');
  assert.deepEqual(asked.decision?.answer?.payload, { answersByQuestionId: { q: 'SQLite' } });
  const gone = toolOf(db, 'gone');
  assert.equal(gone.outcome, 'stopped');
  assert.equal(gone.decision?.choice, 'not_answered');
  assert.equal(gone.decision?.resolution, 'host_restarted');
  assert.equal(toolOf(db, 'live').outcome, null);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testSession } from '../store/testRecords.ts';
import type { SessionCommand } from './sessionCommand.ts';
import { SessionProjector } from './sessionProjector.ts';

/* The `outsideChanges` command: a durable notice row under a turn, its event, and the session's new mark. */

const prompt = { prompt: 'hello', input: [], attachments: [], clientMessageId: null };

function apply(projector: SessionProjector, command: SessionCommand, now: number) {
  const projection = projector.project(command, now);
  projector.accept(projection);
  return projection;
}

test('an outside_changes notice follows the turn’s rows, and the resume cursor marks what Outrigger knows of', () => {
  const cursor = { kind: 'claude-agent-sdk' as const, version: 1 as const, resume: 'claude-1', turnCount: 1 };
  const projector = SessionProjector.fresh(testSession('s1', { resumeCursor: { ...cursor, resumeSessionAt: 'a1' } }));
  apply(projector, { type: 'acceptTurn', turnId: 't1', prompt, queued: false }, 10);
  apply(projector, { type: 'failTurn', turnId: 't1', error: { message: 'x', code: 'x', apiErrorStatus: null } }, 11);

  const text = 'The conversation went on outside Outrigger: 2 new messages.\n\n› what else\n\nthen docs';
  const projection = apply(projector, { type: 'outsideChanges', turnId: 't1', text, mark: 'a9' }, 20);
  const rows = projection.unit.messages ?? [];
  assert.equal(rows.length, 1);
  const [row] = rows as [(typeof rows)[number]];
  assert.equal(row.role, 'system');
  assert.equal(row.noticeKind, 'outside_changes');
  assert.equal(row.status, 'complete');
  assert.equal(row.turnId, 't1');
  assert.deepEqual(row.content, [{ type: 'text', text }]);
  const events = (projection.unit.sessionEvents ?? []).map((event) => event.type);
  assert.ok(events.includes('notice'), events.join());
  assert.deepEqual(projector.session.resumeCursor, { ...cursor, resumeSessionAt: 'a9' });

  const unknown = projector.project({ type: 'outsideChanges', turnId: 'nope', text, mark: 'a10' }, 30);
  assert.equal(unknown.empty, true);
  assert.match(unknown.dropped ?? '', /turn the session does not have/);
});

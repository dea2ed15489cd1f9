import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { claudeHistorySdk } from '@outrigger/claude-sdk-sidecar';
import { type ContentBlock, hostLimits, type MessageView, messageViewSchema } from '@outrigger/host-api';
import { replayFixture } from '../../test/fixtures/fixtureReplay.ts';
import { messageView } from '../projection/views.ts';
import type { TranscriptContent } from './claudeHistoryReader.ts';
import {
  COMPACT_SUMMARY,
  LONG_OUTPUT_CHARS,
  type RecordedTranscript,
  recordTranscript,
} from './testing/transcriptRecording.ts';
import { readTranscriptContent } from './transcriptContent.ts';

/*
 * A transcript written by the REAL Claude Code binary (through the real sidecar, against mock-anthropic):
 * text and thinking, a Read and an Edit, a subagent through the Agent tool, a question answered, an output
 * longer than the preview, `/compact` and a prompt after it. Read into rows, and compared with the rows the
 * live Outrigger session made of the same conversation (the sidecar's events replayed through the host's
 * projection): they are the same but for what only a live session has (its row ids, turn ids and clock).
 */

let recorded: RecordedTranscript;
let content: TranscriptContent;

before(async () => {
  recorded = await recordTranscript();
  content = await readTranscriptContent(claudeHistorySdk(recorded.home.configDir), {
    claudeSessionId: recorded.claudeSessionId,
    cwd: recorded.cwd,
    path: recorded.path,
  });
});

after(() => recorded?.cleanup());

const summary = (rows: readonly MessageView[]) =>
  rows.map((row) => {
    const block = row.content[0];
    if (block?.type === 'text')
      return `${row.role}${row.noticeKind === null ? '' : `/${row.noticeKind}`}: ${block.text}`;
    if (block?.type === 'thinking') return `${row.role}: thinking`;
    if (block?.type === 'tool_use')
      return `${row.role}: ${block.name}${block.parentToolUseId === null ? '' : ' (subagent)'}`;
    return `${row.role}: ${block?.type}`;
  });

test('the real transcript reads into the rows of the conversation, with its cards', { timeout: 240_000 }, () => {
  const { rows, notes } = content;
  for (const row of rows) messageViewSchema.parse(row);
  assert.deepEqual(summary(rows), [
    'user: [h19:text] Say something short.',
    'assistant: thinking',
    'assistant: Here is a short answer.',
    'user: [h19:edit] Change the greeting.',
    'assistant: Read',
    'assistant: Edit',
    'assistant: I changed the greeting.',
    'user: [h19:agent] Delegate listing the files.',
    'assistant: Agent',
    'assistant: Bash (subagent)',
    'assistant: I started an agent to list the files.',
    'assistant: The agent reported back: the work directory is listed.',
    'user: [h19:question] Pick a database.',
    'assistant: AskUserQuestion',
    'assistant: SQLite it is.',
    'user: [h19:long] Print a long line.',
    'assistant: Bash',
    'assistant: That was long.',
    'user: /compact',
    'system/compaction: Compacting completed.',
    'user: [h19:after] What now?',
    'assistant: We are done here.',
  ]);
  assert.ok(!JSON.stringify(rows).includes(COMPACT_SUMMARY), "the compaction's summary is not a row");
  assert.deepEqual(
    notes.map((note) => [note.kind, note.count]),
    [['outputs_cut', 1]],
  );

  const edit = rows[5]?.content[0];
  assert.ok(edit?.type === 'tool_use');
  assert.equal(edit.callType, 'file_change');
  assert.deepEqual(edit.fileChange?.edits, [{ oldText: 'hello', newText: 'goodbye' }]);
  assert.deepEqual(edit.fileChange?.structuredPatch?.[0]?.lines, ['-hello world', '+goodbye world']);
  assert.deepEqual(edit.locations, [`${recorded.cwd}/notes.txt`]);

  const agent = rows[8]?.content[0];
  const sub = rows[9]?.content[0];
  assert.ok(agent?.type === 'tool_use' && sub?.type === 'tool_use');
  assert.equal(sub.parentToolUseId, agent.id, "the subagent's call is under its Agent call");
  assert.equal(agent.agentTask?.status, 'completed');
  assert.equal(agent.agentTask?.summary, 'The work directory holds notes.txt.');

  const question = rows[13]?.content[0];
  assert.ok(question?.type === 'tool_use');
  assert.deepEqual(
    question.decision?.questions.map((q) => [q.question, q.answers]),
    [['Which database should we use?', ['SQLite']]],
  );

  const long = rows[16]?.content[1];
  assert.ok(long?.type === 'tool_result');
  assert.deepEqual(
    [long.truncated, long.length, long.content.length],
    [true, LONG_OUTPUT_CHARS, hostLimits.toolResultPreviewChars],
  );

  const turns = rows.map((row) => row.turnId);
  assert.equal(turns[19], turns[18], 'the compaction notice is in the /compact turn');
  assert.notEqual(turns[11], turns[10], "the agent's report is answered in a turn of its own");
});

/** A row without what only a live session has: its id, its turn's id, its clock, the interaction's request id. */
function comparable(rows: readonly MessageView[]) {
  const turnOrdinal = new Map<string, number>();
  return rows.map((row) => {
    if (!turnOrdinal.has(row.turnId)) turnOrdinal.set(row.turnId, turnOrdinal.size);
    return {
      turn: turnOrdinal.get(row.turnId),
      role: row.role,
      status: row.status,
      noticeKind: row.noticeKind,
      steer: row.steer,
      content: row.content.map(withoutClock),
    };
  });
}

function withoutClock(block: ContentBlock): unknown {
  if (block.type !== 'tool_use') return block;
  const { startedAt: _s, endedAt: _e, agentTask, decision, ...rest } = block;
  return {
    ...rest,
    agentTask: agentTask === null ? null : { ...agentTask, updatedAt: 0 },
    decision:
      decision === null ? null : { kind: decision.kind, choice: decision.choice, questions: decision.questions },
  };
}

test('the rows are those the live session made of the same conversation', { timeout: 60_000 }, async () => {
  const replayed = await replayFixture(recorded.lines);
  try {
    const live = (await replayed.store.listMessages(replayed.sessionId, { limit: 500 })).messages.map(messageView);
    assert.deepEqual(comparable(content.rows), comparable(live));
  } finally {
    await replayed.close();
  }
});

import assert from 'node:assert/strict';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type ClaudeHistorySdk, claudeHistorySdk } from '@outrigger/claude-sdk-sidecar';
import {
  historyNoteSchema,
  hostLimits,
  type MessageView,
  messageViewSchema,
  type ToolUseBlock,
} from '@outrigger/host-api';
import { fileChangeOf } from '../projection/toolRows.ts';
import type { TranscriptContent } from './claudeHistoryReader.ts';
import { TranscriptWriter } from './testing/transcriptWriter.ts';
import { readTranscriptContent } from './transcriptContent.ts';

/*
 * The transcript reader over hand-written Claude Code 2.1 transcripts, read through the real SDK in its
 * worker thread: the rows of each kind of content, and for each kind of bad input the rows of what is
 * readable plus its note.
 */

let root: string;
let configDir: string;
let sdk: ClaudeHistorySdk;
const cwd = '/work/example-project';

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'outrigger-transcript-'));
  configDir = join(root, 'config');
  sdk = claudeHistorySdk(configDir);
});

after(() => rm(root, { recursive: true, force: true }));

async function read(writer: TranscriptWriter): Promise<TranscriptContent & { path: string }> {
  const path = await writer.write(configDir);
  const content = await readTranscriptContent(sdk, { claudeSessionId: writer.sessionId, cwd: writer.cwd, path });
  for (const row of content.rows) messageViewSchema.parse(row);
  for (const note of content.notes) historyNoteSchema.parse(note);
  return { ...content, path };
}

function toolOf(row: MessageView | undefined): ToolUseBlock {
  const block = row?.content[0];
  assert.ok(block?.type === 'tool_use', `a tool row, got ${JSON.stringify(row)}`);
  return block;
}

const shape = (rows: readonly MessageView[]) =>
  rows.map((row) => {
    const block = row.content[0];
    const what =
      block?.type === 'text'
        ? block.text
        : block?.type === 'thinking'
          ? `thinking: ${block.thinking}`
          : block?.type === 'tool_use'
            ? `${block.name}${block.parentToolUseId === null ? '' : ' (subagent)'}`
            : block?.type;
    return `${row.role}${row.noticeKind === null ? '' : `/${row.noticeKind}`}${row.steer ? '/steer' : ''}: ${what}`;
  });

const kinds = (content: TranscriptContent) => content.notes.map((note) => note.kind);

test('prompts, thinking, text and tool calls become the rows and cards of a live session', {
  timeout: 30_000,
}, async () => {
  const w = new TranscriptWriter({ cwd });
  const first = w.prompt([{ type: 'text', text: 'Fix the greeting' }]);
  w.assistant([{ type: 'thinking', thinking: 'Look first.', signature: 'sig' }]);
  const edit = w.tool(
    'Edit',
    { file_path: '/work/example-project/notes.txt', old_string: 'hello', new_string: 'goodbye' },
    'The file has been updated successfully.',
    {
      toolUseResult: {
        filePath: '/work/example-project/notes.txt',
        structuredPatch: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ['-hello', '+goodbye'] }],
      },
    },
  );
  const writeInput = { file_path: '/work/example-project/new.txt', content: 'fresh\n' };
  w.tool('Write', writeInput, 'File created successfully');
  const multiInput = {
    file_path: '/work/example-project/a.ts',
    edits: [
      { old_string: 'a', new_string: 'b' },
      { old_string: 'c', new_string: 'd', replace_all: true },
    ],
  };
  w.tool('MultiEdit', multiInput, 'Applied 2 edits');
  const notebookInput = { notebook_path: '/work/example-project/n.ipynb', new_source: 'print(1)' };
  w.tool('NotebookEdit', notebookInput, 'Updated cell');
  w.tool('Bash', { command: 'false' }, 'exit 1', { isError: true });
  w.text('Done.');
  const second = w.prompt('And now?');
  w.text('Nothing more.');
  const { rows, notes } = await read(w);

  assert.deepEqual(shape(rows), [
    'user: Fix the greeting',
    'assistant: thinking: Look first.',
    'assistant: Edit',
    'assistant: Write',
    'assistant: MultiEdit',
    'assistant: NotebookEdit',
    'assistant: Bash',
    'assistant: Done.',
    'user: And now?',
    'assistant: Nothing more.',
  ]);
  assert.deepEqual(notes, []);
  assert.deepEqual(
    rows.map((row) => row.position),
    rows.map((_, i) => i),
  );
  assert.ok(rows.every((row) => row.status === 'complete' && row.session_id === w.sessionId));
  assert.deepEqual(
    rows.map((row) => row.turnId),
    [...rows.slice(0, 8).map(() => first), second, second],
    'a row belongs to the prompt it answers',
  );
  assert.equal(new Set(rows.map((row) => row.id)).size, rows.length, 'row ids are unique');

  const editTool = toolOf(rows[2]);
  assert.equal(editTool.id, edit);
  assert.equal(editTool.callType, 'file_change');
  assert.deepEqual(editTool.locations, ['/work/example-project/notes.txt']);
  assert.deepEqual(editTool.fileChange, {
    path: '/work/example-project/notes.txt',
    operation: 'edit',
    edits: [{ oldText: 'hello', newText: 'goodbye' }],
    structuredPatch: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ['-hello', '+goodbye'] }],
  });
  assert.deepEqual([editTool.status, editTool.outcome], ['completed', 'completed']);
  assert.ok(editTool.startedAt < (editTool.endedAt ?? 0), 'started at the call, ended at the result');
  assert.deepEqual(rows[2]?.content[1], {
    type: 'tool_result',
    tool_use_id: edit,
    content: 'The file has been updated successfully.',
    is_error: false,
    resultSource: 'canonical',
    truncated: false,
    length: 'The file has been updated successfully.'.length,
  });
  // The other file tools' cards are the live projection's own (`fileChangeOf`).
  assert.deepEqual(toolOf(rows[3]).fileChange, fileChangeOf('Write', writeInput));
  assert.deepEqual(toolOf(rows[4]).fileChange, fileChangeOf('MultiEdit', multiInput));
  assert.deepEqual(toolOf(rows[5]).fileChange, fileChangeOf('NotebookEdit', notebookInput));
  assert.deepEqual(toolOf(rows[5]).locations, ['/work/example-project/n.ipynb']);
  const failed = toolOf(rows[6]);
  assert.deepEqual([failed.callType, failed.status, failed.outcome], ['command', 'failed', 'failed']);
  assert.equal(rows[6]?.content[1]?.type === 'tool_result' && rows[6].content[1].is_error, true);
});

test('a subagent: its calls under the Agent call, by time; its prose stays in its transcript', {
  timeout: 30_000,
}, async () => {
  const w = new TranscriptWriter({ cwd });
  w.prompt('Delegate');
  const agentId = 'a0123456789abcdef';
  const agentCall = w.call('Agent', { description: 'Look around', prompt: 'ls', subagent_type: 'general-purpose' });
  const sub = new TranscriptWriter({ cwd, sessionId: w.sessionId, agentId, startedAt: Date.UTC(2026, 10, 1) + 1500 });
  sub.prompt('ls');
  sub.tool('Bash', { command: 'ls' }, 'notes.txt');
  sub.text('The folder holds notes.txt.');
  w.result(agentCall, [{ type: 'text', text: 'The folder holds notes.txt.' }], {
    toolUseResult: {
      status: 'completed',
      agentId,
      content: [{ type: 'text', text: 'The folder holds notes.txt.' }],
      totalTokens: 120,
      totalToolUseCount: 1,
      totalDurationMs: 900,
    },
  });
  w.text('The agent looked.');
  await sub.writeSubagent(configDir, w.sessionId, agentId);
  const { rows, notes } = await read(w);
  assert.deepEqual(shape(rows), [
    'user: Delegate',
    'assistant: Agent',
    'assistant: Bash (subagent)',
    'assistant: The agent looked.',
  ]);
  assert.deepEqual(notes, []);
  const agent = toolOf(rows[1]);
  assert.equal(agent.callType, 'subagent');
  assert.deepEqual(agent.agentTask, {
    taskId: agentId,
    agentId,
    status: 'completed',
    description: 'Look around',
    summary: 'The folder holds notes.txt.',
    lastToolName: 'Bash',
    usage: { total_tokens: 120, tool_uses: 1, duration_ms: 900 },
    updatedAt: agent.endedAt,
  });
  const bash = toolOf(rows[2]);
  assert.equal(bash.parentToolUseId, agentCall);
  assert.equal(rows[2]?.turnId, rows[1]?.turnId, "a subagent's call is in its Agent call's turn");
  assert.equal(rows[2]?.content[1]?.type === 'tool_result' && rows[2].content[1].content, 'notes.txt');
});

test('a subagent that launched a subagent: each call under its own Agent call', { timeout: 30_000 }, async () => {
  const w = new TranscriptWriter({ cwd });
  w.prompt('Delegate twice');
  const outer = w.call('Agent', { description: 'Outer', prompt: 'delegate' });
  const start = Date.UTC(2026, 10, 1) + 1500;
  const outerAgent = new TranscriptWriter({ cwd, sessionId: w.sessionId, agentId: 'aouter', startedAt: start });
  outerAgent.prompt('delegate');
  const inner = outerAgent.call('Agent', { description: 'Inner', prompt: 'ls' });
  const innerAgent = new TranscriptWriter({ cwd, sessionId: w.sessionId, agentId: 'ainner', startedAt: start + 1500 });
  innerAgent.prompt('ls');
  innerAgent.tool('Bash', { command: 'ls' }, 'notes.txt');
  outerAgent.result(inner, 'inner done', { toolUseResult: { status: 'completed', agentId: 'ainner', content: [] } });
  w.result(outer, 'outer done', { toolUseResult: { status: 'completed', agentId: 'aouter', content: [] } });
  await outerAgent.writeSubagent(configDir, w.sessionId, 'aouter');
  await innerAgent.writeSubagent(configDir, w.sessionId, 'ainner');
  const { rows, notes } = await read(w);
  assert.deepEqual(notes, []);
  assert.deepEqual(shape(rows), [
    'user: Delegate twice',
    'assistant: Agent',
    'assistant: Agent (subagent)',
    'assistant: Bash (subagent)',
  ]);
  assert.deepEqual(
    rows.slice(1).map((row) => toolOf(row).parentToolUseId),
    [null, outer, inner],
  );
  assert.ok(rows.every((row) => row.turnId === rows[0]?.turnId));
});

test('an Agent whose subagent transcript is missing keeps its card, with a note', { timeout: 30_000 }, async () => {
  const w = new TranscriptWriter({ cwd });
  w.prompt('Delegate');
  const call = w.call('Agent', { description: 'Gone', prompt: 'x' });
  w.result(call, 'Async agent launched successfully.', {
    toolUseResult: { isAsync: true, status: 'async_launched', agentId: 'a-missing-agent', description: 'Gone' },
  });
  w.text('Started.');
  const { rows, notes } = await read(w);
  assert.deepEqual(shape(rows), ['user: Delegate', 'assistant: Agent', 'assistant: Started.']);
  assert.deepEqual(kinds({ rows, notes }), ['subagent_unreadable']);
  assert.equal(notes[0]?.count, 1);
  assert.match(notes[0]!.message, /could not be read/);
  assert.equal(toolOf(rows[1]).agentTask?.status, 'stopped', 'the transcript does not say how it ended');
});

test('a subagent transcript of damaged lines only is unreadable, not empty', { timeout: 30_000 }, async () => {
  const w = new TranscriptWriter({ cwd });
  w.prompt('Delegate');
  const call = w.call('Agent', { description: 'Broken', prompt: 'x' });
  w.result(call, 'ok', { toolUseResult: { status: 'completed', agentId: 'abrokenagent', content: [] } });
  await writeFile(
    await new TranscriptWriter({ cwd, sessionId: w.sessionId, agentId: 'abrokenagent' }).writeSubagent(
      configDir,
      w.sessionId,
      'abrokenagent',
    ),
    '{"type":"user","mess\n',
  );
  const { rows, notes } = await read(w);
  assert.deepEqual(shape(rows), ['user: Delegate', 'assistant: Agent']);
  assert.deepEqual(kinds({ rows, notes }), ['subagent_unreadable']);
});

test('a compaction: the conversation before it still shows, then the command and its notice', {
  timeout: 30_000,
}, async () => {
  const w = new TranscriptWriter({ cwd });
  w.prompt('First question');
  const before = w.text('First answer');
  w.compactBoundary('manual');
  w.prompt('This session is being continued from a previous conversation… Summary: first.', {
    isCompactSummary: true,
    isVisibleInTranscriptOnly: true,
  });
  w.prompt('<local-command-caveat>The command below was run directly.</local-command-caveat>', { isMeta: true });
  const command = w.prompt(
    '<command-name>/compact</command-name>\n            <command-message>compact</command-message>\n            <command-args></command-args>',
  );
  w.prompt('<local-command-stdout>Compacted </local-command-stdout>');
  w.prompt('Second question');
  w.text('Second answer');
  // What the SDK alone returns: only the chain since the boundary.
  const fromSdk = await sdk.getSessionMessages(w.sessionId, { dir: cwd });
  const { rows, notes } = await read(w);
  assert.ok(
    !fromSdk.some((message) => message.uuid === before),
    'precondition: the SDK drops what precedes the boundary',
  );
  assert.deepEqual(shape(rows), [
    'user: First question',
    'assistant: First answer',
    'user: /compact',
    'system/compaction: Compacting completed.',
    'user: Second question',
    'assistant: Second answer',
  ]);
  assert.equal(rows[3]?.turnId, command, 'the notice is in the turn of the /compact prompt');
  assert.deepEqual(notes, []);
});

test('an automatic compaction mid-turn is a notice in that turn; older compactions are followed back too', {
  timeout: 30_000,
}, async () => {
  const w = new TranscriptWriter({ cwd });
  const one = w.prompt('One');
  w.text('Answer one');
  w.compactBoundary('auto');
  w.prompt('summary one', { isCompactSummary: true });
  w.text('Still on one');
  const two = w.prompt('Two');
  w.compactBoundary('auto');
  w.prompt('summary two', { isCompactSummary: true });
  w.text('Answer two');
  const { rows } = await read(w);
  assert.deepEqual(shape(rows), [
    'user: One',
    'assistant: Answer one',
    'system/compaction: Compacting completed.',
    'assistant: Still on one',
    'user: Two',
    'system/compaction: Compacting completed.',
    'assistant: Answer two',
  ]);
  assert.deepEqual(
    rows.map((row) => row.turnId),
    [one, one, one, one, two, two, two],
  );
});

test('damaged lines (one in the middle, a truncated last one) are skipped with a note', {
  timeout: 30_000,
}, async () => {
  const w = new TranscriptWriter({ cwd });
  w.prompt('Hello');
  w.raw('{"type":"assistant","uuid":"broken", "message": {"content": [');
  w.text('Hi there');
  const { rows, notes, path } = await read(w);
  assert.deepEqual(shape(rows), ['user: Hello', 'assistant: Hi there']);
  assert.deepEqual(
    notes.map((note) => [note.kind, note.count]),
    [['corrupt_lines', 1]],
  );
  assert.match(notes[0]!.message, /damaged/);

  await appendFile(path, '{"parentUuid":"x","type":"user","mess');
  const truncated = await readTranscriptContent(sdk, { claudeSessionId: w.sessionId, cwd, path });
  assert.deepEqual(shape(truncated.rows), ['user: Hello', 'assistant: Hi there']);
  assert.deepEqual(
    truncated.notes.map((note) => [note.kind, note.count]),
    [['corrupt_lines', 2]],
  );
});

test('a damaged line inside the chain does not cut off what came before it', { timeout: 30_000 }, async () => {
  const w = new TranscriptWriter({ cwd });
  w.prompt('Before the damage');
  w.text('An early answer');
  w.prompt('The damaged prompt');
  w.lines[w.lines.length - 1] = w.lines.at(-1)!.slice(0, 40); // the next entry names it as its parent
  w.text('After the damage');
  const { rows, notes } = await read(w);
  assert.deepEqual(shape(rows), [
    'user: Before the damage',
    'assistant: An early answer',
    'assistant: After the damage',
  ]);
  assert.deepEqual(kinds({ rows, notes }), ['corrupt_lines']);
});

test('a truncated last line alone says it may still be being written', { timeout: 30_000 }, async () => {
  const w = new TranscriptWriter({ cwd });
  w.prompt('Hello');
  w.text('Hi');
  w.raw('{"parentUuid":"x","type":"user","mess');
  const { rows, notes } = await read(w);
  assert.equal(rows.length, 2);
  assert.deepEqual(kinds({ rows, notes }), ['corrupt_lines']);
  assert.match(notes[0]!.message, /last line/);
});

test('entries and blocks of unknown kinds are skipped with a note; the rest shows', { timeout: 30_000 }, async () => {
  const w = new TranscriptWriter({ cwd });
  w.prompt('Hello');
  w.entry({ type: 'hologram', payload: { whatever: true } });
  w.assistant([
    { type: 'text', text: 'Part one' },
    { type: 'sparkle', data: 'x' },
    { type: 'redacted_thinking', data: 'hidden' },
  ]);
  w.meta({ type: 'a-future-metadata-kind', value: 1 });
  w.text('Part two');
  const { rows, notes } = await read(w);
  assert.deepEqual(shape(rows), ['user: Hello', 'assistant: Part one', 'assistant: Part two']);
  assert.deepEqual(
    notes.map((note) => [note.kind, note.count]),
    [['unknown_entries', 2]],
  );
});

test('a transcript from a newer Claude Code says so, naming both versions', { timeout: 30_000 }, async () => {
  const w = new TranscriptWriter({ cwd });
  w.prompt('Hello');
  w.version = '9.0.1';
  w.text('From the future');
  const { rows, notes } = await read(w);
  assert.deepEqual(shape(rows), ['user: Hello', 'assistant: From the future']);
  assert.deepEqual(kinds({ rows, notes }), ['newer_version']);
  assert.equal(notes[0]?.count, 1);
  assert.match(notes[0]!.message, /9\.0\.1.*2\.1\.\d+/);
});

test('a 5 MB tool output is cut to the preview, with its whole length and a note', { timeout: 30_000 }, async () => {
  const w = new TranscriptWriter({ cwd });
  w.prompt('Print a lot');
  const output = 'y'.repeat(5 * 1024 * 1024);
  w.tool('Bash', { command: 'yes | head' }, output, { toolUseResult: { stdout: output, stderr: '' } });
  w.text('That was a lot.');
  const { rows, notes } = await read(w);
  assert.deepEqual(shape(rows), ['user: Print a lot', 'assistant: Bash', 'assistant: That was a lot.']);
  const result = rows[1]?.content[1];
  assert.ok(result?.type === 'tool_result');
  assert.equal(result.content.length, hostLimits.toolResultPreviewChars);
  assert.equal(result.truncated, true);
  assert.equal(result.length, output.length);
  assert.deepEqual(
    notes.map((note) => [note.kind, note.count]),
    [['outputs_cut', 1]],
  );
});

test('an empty file, or one of metadata only, gives no rows and says so; a missing file rejects', {
  timeout: 30_000,
}, async () => {
  const empty = new TranscriptWriter({ cwd });
  const path = await empty.write(configDir);
  await writeFile(path, '');
  const content = await readTranscriptContent(sdk, { claudeSessionId: empty.sessionId, cwd, path });
  assert.deepEqual(content.rows, []);
  assert.deepEqual(kinds(content), ['empty']);

  const metadataOnly = new TranscriptWriter({ cwd });
  metadataOnly.meta({ type: 'custom-title', customTitle: 'Nothing yet' });
  const only = await read(metadataOnly);
  assert.deepEqual([only.rows, kinds(only)], [[], ['empty']]);

  await assert.rejects(
    readTranscriptContent(sdk, { claudeSessionId: empty.sessionId, cwd, path: join(root, 'gone.jsonl') }),
    { code: 'ENOENT' },
  );
});

test('prompts: images are named in words, a steer folded into the turn, commands as typed, markers hidden', {
  timeout: 30_000,
}, async () => {
  const w = new TranscriptWriter({ cwd });
  const turn = w.prompt([
    { type: 'text', text: 'What is in this picture?' },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(4096) } },
  ]);
  const running = w.call('Bash', { command: 'sleep 1' });
  w.entry({
    type: 'attachment',
    attachment: {
      type: 'queued_command',
      prompt: 'Also check the tests',
      source_uuid: 'f0f0f0f0-0000-4000-8000-000000000001',
      commandMode: 'prompt',
    },
  });
  w.result(running, "The user doesn't want to proceed with this tool use. The tool use was rejected.", {
    isError: true,
  });
  w.prompt([{ type: 'text', text: '[Request interrupted by user for tool use]' }]);
  w.prompt(
    '<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args>sonnet</command-args>',
  );
  w.prompt('<local-command-stdout>Set model to sonnet</local-command-stdout>');
  const { rows } = await read(w);
  const texts = rows.map((row) => shape([row])[0]);
  assert.equal(texts[0], 'user: What is in this picture?');
  assert.deepEqual(rows[0]?.content[1], {
    type: 'text',
    text: '[An image (image/png, 3 KB) was attached here; the history does not show attachments.]',
  });
  const steer = rows.find((row) => row.steer);
  assert.equal(steer === undefined ? undefined : shape([steer])[0], 'user/steer: Also check the tests');
  assert.equal(steer?.turnId, turn, 'a steer is part of the running turn');
  const stopped = toolOf(rows.find((row) => row.content[0]?.type === 'tool_use'));
  assert.deepEqual([stopped.status, stopped.outcome], ['failed', 'canceled']);
  assert.ok(texts.includes('user: /model sonnet'));
  assert.ok(!texts.some((text) => text?.includes('interrupted') || text?.includes('Set model')));
});

test('interactive tools read as their decisions; a background command and a call left open', {
  timeout: 30_000,
}, async () => {
  const w = new TranscriptWriter({ cwd });
  w.prompt('Decide things');
  const question = w.tool(
    'AskUserQuestion',
    { questions: [{ question: 'Which database?', header: 'DB', options: [{ label: 'SQLite' }], multiSelect: false }] },
    'User has answered your questions: "Which database?"="SQLite".',
    {
      toolUseResult: {
        questions: [],
        answers: { 'Which database?': 'SQLite' },
        annotations: { 'Which database?': { notes: 'small' } },
      },
    },
  );
  w.tool('AskUserQuestion', { questions: [{ question: 'Skip me?' }] }, 'The user declined to answer.', {
    isError: true,
  });
  w.tool('ExitPlanMode', { plan: 'Do it' }, 'User has approved your plan.');
  const background = w.tool(
    'Bash',
    { command: 'npm test', run_in_background: true },
    'Command running in background with ID: b1.',
    { toolUseResult: { stdout: '', stderr: '', backgroundTaskId: 'b1' } },
  );
  w.text('Waiting.');
  w.prompt(
    `<task-notification>\n<task-id>b1</task-id>\n<tool-use-id>${background}</tool-use-id>\n<status>failed</status>\n<summary>Background command failed</summary>\n</task-notification>`,
  );
  w.text('The tests failed.');
  w.call('Read', { file_path: '/work/example-project/x' });
  const { rows, notes } = await read(w);
  assert.deepEqual(notes, []);
  const tools = rows.filter((row) => row.content[0]?.type === 'tool_use').map(toolOf);
  const [asked, skipped, plan, command, open] = tools;
  assert.equal(asked?.id, question);
  assert.equal(asked?.callType, 'interactive');
  assert.equal(asked?.decision?.choice, 'answered');
  assert.deepEqual(asked?.decision?.questions, [
    { question: 'Which database?', header: 'DB', answers: ['SQLite'], notes: 'small' },
  ]);
  assert.deepEqual([skipped?.decision?.choice, skipped?.outcome], ['skipped', 'denied']);
  assert.deepEqual([plan?.decision?.choice, plan?.outcome], ['plan_approved', 'completed']);
  assert.deepEqual(command?.background, { taskId: 'b1', status: 'failed' });
  assert.equal(command?.output, 'Command running in background with ID: b1.');
  assert.deepEqual([open?.status, open?.outcome], ['failed', 'stopped']);
  const openRow = rows.find((row) => row.content[0]?.type === 'tool_use' && row.content[0].id === open?.id);
  assert.equal(openRow?.content[1]?.type === 'tool_result' && openRow.content[1].resultSource, 'synthesized');
  // The notification opens a turn of its own with no prompt row, as a live continuation does.
  assert.deepEqual(shape(rows).slice(-3), ['assistant: Waiting.', 'assistant: The tests failed.', 'assistant: Read']);
});

test('an API error Claude Code recorded as its answer is an error notice', { timeout: 30_000 }, async () => {
  const w = new TranscriptWriter({ cwd });
  w.prompt('Hello');
  w.assistant([{ type: 'text', text: 'API Error: 529 overloaded' }], { isApiErrorMessage: true });
  const { rows } = await read(w);
  assert.deepEqual(shape(rows), ['user: Hello', 'system/error: API Error: 529 overloaded']);
});

test('when the SDK cannot read the transcript, the raw chain gives the same rows', { timeout: 30_000 }, async () => {
  const w = new TranscriptWriter({ cwd });
  w.prompt('Hello');
  w.tool('Bash', { command: 'ls' }, 'a.txt');
  w.text('Listed.');
  const path = await w.write(configDir);
  const entry = { claudeSessionId: w.sessionId, cwd, path };
  const failing: ClaudeHistorySdk = { ...sdk, getSessionMessages: () => Promise.reject(new Error('worker gone')) };
  const fallback = await readTranscriptContent(failing, entry);
  const normal = await readTranscriptContent(sdk, entry);
  assert.deepEqual(fallback, normal);
  assert.deepEqual(shape(fallback.rows), ['user: Hello', 'assistant: Bash', 'assistant: Listed.']);
});

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { rawBody, scanTranscript } from './transcriptScan.ts';

let root: string;

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'outrigger-transcript-scan-'));
});

after(() => rm(root, { recursive: true, force: true }));

async function scanOf(name: string, text: string) {
  const path = join(root, name);
  await writeFile(path, text);
  return scanTranscript(path);
}

const entry = (fields: Record<string, unknown>) => JSON.stringify({ version: '2.1.332', ...fields });

test('damaged lines are counted and skipped; the entries around them are kept', async () => {
  const scan = await scanOf(
    'damaged.jsonl',
    [
      entry({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'hi' } }),
      '{"type":"assistant","uuid":"a1", "message": {',
      'not json at all',
      entry({ type: 'assistant', uuid: 'a2', parentUuid: 'u1', message: { role: 'assistant', content: [] } }),
      '',
    ].join('\n'),
  );
  assert.equal(scan.lines, 4);
  assert.equal(scan.corruptLines, 2);
  assert.equal(scan.lastLineCorrupt, false);
  assert.deepEqual([...scan.entries.keys()], ['u1', 'a2']);
  assert.equal(scan.lastConversationUuid, 'a2');
});

test('a truncated last line (no newline, cut mid-JSON) is the last line and damaged', async () => {
  const scan = await scanOf(
    'truncated.jsonl',
    `${entry({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'hi' } })}\n{"type":"assi`,
  );
  assert.equal(scan.corruptLines, 1);
  assert.equal(scan.lastLineCorrupt, true);
  assert.equal(scan.entries.size, 1);
});

test('chain entries of unknown kinds and JSON that is no entry count as unknown; metadata does not', async () => {
  const scan = await scanOf(
    'unknown.jsonl',
    [
      entry({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'hi' } }),
      entry({ type: 'hologram', uuid: 'h1', parentUuid: 'u1' }),
      JSON.stringify([1, 2, 3]),
      JSON.stringify({ no: 'type' }),
      JSON.stringify({ type: 'some-future-metadata', sessionId: 's' }),
      JSON.stringify({ type: 'last-prompt', lastPrompt: 'hi', sessionId: 's' }),
    ].join('\n'),
  );
  assert.equal(scan.unknownEntries, 3);
  assert.equal(scan.corruptLines, 0);
});

test('versions are counted per entry; attachments keep only their links and a queued prompt', async () => {
  const scan = await scanOf(
    'versions.jsonl',
    [
      entry({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'hi' } }),
      JSON.stringify({
        type: 'attachment',
        uuid: 't1',
        parentUuid: 'u1',
        version: '2.9.0',
        attachment: { type: 'skill_listing', content: 'x'.repeat(10_000) },
      }),
      JSON.stringify({
        type: 'attachment',
        uuid: 'q1',
        parentUuid: 't1',
        version: '2.9.0',
        attachment: { type: 'queued_command', prompt: 'steer', source_uuid: 'chosen' },
      }),
    ].join('\n'),
  );
  assert.deepEqual(
    [...scan.versions],
    [
      ['2.1.332', 1],
      ['2.9.0', 2],
    ],
  );
  assert.equal(scan.entries.get('t1')?.attachment, undefined, 'a listing is not kept');
  assert.equal(scan.entries.get('t1')?.parentUuid, 'u1');
  assert.deepEqual(scan.entries.get('q1')?.attachment, {
    type: 'queued_command',
    prompt: 'steer',
    source_uuid: 'chosen',
  });
});

test('a 5 MB line spanning many chunks is one entry', async () => {
  const output = 'z'.repeat(5 * 1024 * 1024);
  const scan = await scanOf(
    'huge.jsonl',
    [
      entry({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'hi' } }),
      entry({ type: 'user', uuid: 'r1', parentUuid: 'u1', toolUseResult: { stdout: output } }),
      entry({ type: 'assistant', uuid: 'a1', parentUuid: 'r1', message: { role: 'assistant', content: [] } }),
    ].join('\n'),
  );
  assert.equal(scan.corruptLines, 0);
  const body = rawBody(scan.entries.get('r1'));
  assert.equal((body!.toolUseResult as { stdout: string }).stdout.length, output.length);
  assert.equal(scan.lastConversationUuid, 'a1');
});

test('an empty file scans to nothing', async () => {
  const scan = await scanOf('empty.jsonl', '');
  assert.deepEqual([scan.lines, scan.corruptLines, scan.entries.size, scan.lastConversationUuid], [0, 0, 0, undefined]);
});

test('a file that is not there rejects', async () => {
  await assert.rejects(scanTranscript(join(root, 'missing.jsonl')), { code: 'ENOENT' });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hunkPatch, parseHunks } from './unifiedDiff.ts';

const THREE_HUNKS = [
  'diff --git a/notes.txt b/notes.txt',
  'index 1111111..2222222 100644',
  '--- a/notes.txt',
  '+++ b/notes.txt',
  '@@ -1,3 +1,3 @@',
  ' one',
  '-two',
  '+TWO',
  ' three',
  '@@ -10,2 +10,3 @@ function middle() {',
  ' ten',
  '+ten and a half',
  ' eleven',
  '@@ -20 +21 @@',
  '-last',
  '\\ No newline at end of file',
  '+LAST',
  '\\ No newline at end of file',
  '',
].join('\n');

test('parseHunks reads each hunk: its header, its ranges (a count git leaves out is 1) and its lines', () => {
  const hunks = parseHunks(THREE_HUNKS);
  assert.deepEqual(
    hunks.map(({ index, header, oldStart, oldLines, newStart, newLines }) => ({
      index,
      header,
      oldStart,
      oldLines,
      newStart,
      newLines,
    })),
    [
      { index: 0, header: '@@ -1,3 +1,3 @@', oldStart: 1, oldLines: 3, newStart: 1, newLines: 3 },
      {
        index: 1,
        header: '@@ -10,2 +10,3 @@ function middle() {',
        oldStart: 10,
        oldLines: 2,
        newStart: 10,
        newLines: 3,
      },
      { index: 2, header: '@@ -20 +21 @@', oldStart: 20, oldLines: 1, newStart: 21, newLines: 1 },
    ],
  );
  assert.deepEqual(hunks[0]!.lines, [' one', '-two', '+TWO', ' three']);
  assert.deepEqual(hunks[2]!.lines, ['-last', '\\ No newline at end of file', '+LAST', '\\ No newline at end of file']);
});

test('parseHunks stops a hunk at its line counts: a deleted line that reads like a header stays a line', () => {
  const patch = ['--- a/x', '+++ b/x', '@@ -1,2 +1 @@', '--- a/not-a-header', ' kept', 'diff --git a/y b/y', ''].join(
    '\n',
  );
  const [hunk] = parseHunks(patch);
  assert.deepEqual(hunk?.lines, ['--- a/not-a-header', ' kept']);
  assert.deepEqual(parseHunks('diff --git a/bin b/bin\nBinary files a/bin and b/bin differ\n'), []);
  assert.deepEqual(parseHunks(''), []);
});

test('hunkPatch keeps the ---/+++ header and the one hunk asked for', () => {
  assert.equal(
    hunkPatch(THREE_HUNKS, 1),
    [
      '--- b/notes.txt',
      '+++ b/notes.txt',
      '@@ -10,2 +10,3 @@ function middle() {',
      ' ten',
      '+ten and a half',
      ' eleven',
      '',
    ].join('\n'),
  );
  assert.throws(() => hunkPatch(THREE_HUNKS, 3), /has 3 hunk\(s\); there is no hunk 3/);
});

test('hunkPatch names a renamed file by its new path on both sides, and keeps /dev/null for an added or deleted one', () => {
  const renamed = [
    'diff --git a/old name.txt b/new name.txt',
    'similarity index 80%',
    'rename from old name.txt',
    'rename to new name.txt',
    'index 1111111..2222222 100644',
    '--- a/old name.txt\t',
    '+++ b/new name.txt\t',
    '@@ -1 +1 @@',
    '-a',
    '+b',
    '',
  ].join('\n');
  assert.equal(hunkPatch(renamed, 0), '--- b/new name.txt\t\n+++ b/new name.txt\t\n@@ -1 +1 @@\n-a\n+b\n');
  const added = ['diff --git a/n b/n', 'new file mode 100755', '--- /dev/null', '+++ b/n', '@@ -0,0 +1 @@', '+x', ''];
  assert.equal(hunkPatch(added.join('\n'), 0), '--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\n');
  const deleted = [
    'diff --git a/d b/d',
    'deleted file mode 100644',
    '--- a/d',
    '+++ /dev/null',
    '@@ -1 +0,0 @@',
    '-x',
    '',
  ];
  assert.equal(hunkPatch(deleted.join('\n'), 0), '--- a/d\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePatch } from 'diff';
import { diffStats, fileChangeFromInput, unifiedDiffOf, unifiedDiffOfHunks } from './fileDiff.ts';

test('an Edit without a reported patch diffs its old and new text', () => {
  const diff = unifiedDiffOf({
    path: '/src/app.ts',
    operation: 'edit',
    edits: [{ oldText: 'const a = 1;\nconst b = 2;', newText: 'const a = 1;\nconst b = 3;' }],
  });
  const [patch] = parsePatch(diff);
  assert.equal(patch?.hunks.length, 1);
  assert.deepEqual(patch?.hunks[0]?.lines, [' const a = 1;', '-const b = 2;', '+const b = 3;']);
  assert.deepEqual(diffStats(diff), { added: 1, removed: 1 });
  assert.match(diff, /^diff --git a\/src\/app.ts b\/src\/app.ts\n--- a\/src\/app.ts/);
});

test('Claude Code’s structured patch keeps its line numbers; a Write shows the new file', () => {
  const reported = unifiedDiffOf({
    path: 'README.md',
    operation: 'multi_edit',
    edits: [],
    structuredPatch: [{ oldStart: 40, oldLines: 2, newStart: 40, newLines: 2, lines: [' a', '-b', '+c'] }],
  });
  assert.equal(parsePatch(reported)[0]?.hunks[0]?.oldStart, 40);
  const created = unifiedDiffOf({ path: 'hello.txt', operation: 'create', edits: [], content: 'one\ntwo\n' });
  assert.match(created, /new file mode/);
  assert.deepEqual(parsePatch(created)[0]?.hunks[0]?.lines, ['+one', '+two']);
  assert.deepEqual(diffStats(created), { added: 2, removed: 0 });
});

test('an approval reads the change from the Edit, MultiEdit or Write input', () => {
  assert.deepEqual(fileChangeFromInput('Edit', { file_path: 'a.ts', old_string: 'x', new_string: 'y' }), {
    path: 'a.ts',
    operation: 'edit',
    edits: [{ oldText: 'x', newText: 'y', replaceAll: false }],
  });
  assert.equal(fileChangeFromInput('Write', { file_path: 'b.md', content: '# B' })?.operation, 'create');
  assert.equal(
    fileChangeFromInput('MultiEdit', { file_path: 'c', edits: [{ old_string: '1', new_string: '2' }, 'junk'] })?.edits
      .length,
    1,
  );
  assert.equal(fileChangeFromInput('Bash', { command: 'ls' }), null);
  assert.equal(fileChangeFromInput('Edit', { file_path: 'a.ts' }), null);
});

test('a checkpoint diff’s hunks parse back in the host’s order, an added file as new', () => {
  const file = {
    path: 'src/my file.ts',
    oldPath: null,
    status: 'modified' as const,
    binary: false,
    additions: 2,
    deletions: 1,
    oldMode: '100644',
    newMode: '100644',
  };
  const hunks = [
    {
      index: 0,
      header: '@@ -1,2 +1,2 @@',
      oldStart: 1,
      oldLines: 2,
      newStart: 1,
      newLines: 2,
      lines: ['-a', '+b', ' c'],
    },
    {
      index: 1,
      header: '@@ -20,1 +20,2 @@',
      oldStart: 20,
      oldLines: 1,
      newStart: 20,
      newLines: 2,
      lines: [' x', '+y', '\\ No newline at end of file'],
    },
  ];
  const parsed = parsePatch(unifiedDiffOfHunks(file, hunks));
  assert.equal(parsed.length, 1);
  assert.deepEqual(
    parsed[0]?.hunks.map((hunk) => hunk.oldStart),
    [1, 20],
  );
  assert.deepEqual(parsed[0]?.hunks[1]?.lines, [' x', '+y']);
  const added = unifiedDiffOfHunks({ ...file, status: 'added', oldMode: null }, [
    { index: 0, header: '@@ -0,0 +1,1 @@', oldStart: 0, oldLines: 0, newStart: 1, newLines: 1, lines: ['+new'] },
  ]);
  assert.match(added, /new file mode[\s\S]*--- \/dev\/null/);
  const deleted = unifiedDiffOfHunks({ ...file, status: 'deleted', newMode: null }, []);
  assert.match(deleted, /deleted file mode[\s\S]*\+\+\+ \/dev\/null/);
});

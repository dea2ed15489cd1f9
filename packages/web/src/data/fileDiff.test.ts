import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePatch } from 'diff';
import { diffStats, fileChangeFromInput, unifiedDiffOf } from './fileDiff.ts';

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

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePatch } from 'diff';
import { diffStats, unifiedDiffOf } from './fileDiff.ts';

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

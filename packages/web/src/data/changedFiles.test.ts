import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChangedFile } from '@outrigger/host-api';
import {
  changeSentence,
  displayPath,
  filesChangedText,
  hasTextDiff,
  lineTotals,
  modeNote,
  rewindWord,
} from './changedFiles.ts';

const file = (overrides: Partial<ChangedFile>): ChangedFile => ({
  path: 'src/a.ts',
  oldPath: null,
  status: 'modified',
  binary: false,
  additions: 0,
  deletions: 0,
  oldMode: '100644',
  newMode: '100644',
  ...overrides,
});

test('a count of files reads as words', () => {
  assert.equal(filesChangedText(0), 'No files changed');
  assert.equal(filesChangedText(1), '1 file changed');
  assert.equal(filesChangedText(6), '6 files changed');
});

test('a rename shows both paths; other changes their path', () => {
  assert.equal(
    displayPath(file({ status: 'renamed', oldPath: 'docs/setup.md', path: 'docs/install.md' })),
    'docs/setup.md → docs/install.md',
  );
  assert.equal(displayPath(file({ status: 'deleted', newMode: null })), 'src/a.ts');
});

test('file modes read as what they mean', () => {
  assert.equal(modeNote(file({})), null);
  assert.equal(modeNote(file({ newMode: '100755' })), 'now executable');
  assert.equal(modeNote(file({ oldMode: '100755', newMode: '100644' })), 'no longer executable');
  assert.equal(modeNote(file({ newMode: '120000' })), 'now a symlink');
  assert.equal(modeNote(file({ oldMode: '120000', newMode: '100644' })), 'no longer a symlink');
  assert.equal(modeNote(file({ status: 'added', oldMode: null, newMode: '100755' })), 'executable');
  assert.equal(modeNote(file({ status: 'added', oldMode: null, newMode: '100644' })), null);
  assert.equal(modeNote(file({ status: 'deleted', oldMode: '100755', newMode: null })), null);
  assert.equal(modeNote(file({ oldMode: '100644', newMode: '160000' })), 'mode 100644 → 160000');
});

test('totals, sentences and whether there is text to show', () => {
  const files = [file({ additions: 3, deletions: 1 }), file({ path: 'logo.png', binary: true })];
  assert.deepEqual(lineTotals(files), { additions: 3, deletions: 1 });
  assert.equal(changeSentence(files[0]!), 'src/a.ts, modified, 3 lines added, 1 removed');
  assert.equal(changeSentence(files[1]!), 'logo.png, modified, binary');
  assert.equal(changeSentence(file({ newMode: '100755' })), 'src/a.ts, modified, now executable');
  assert.equal(hasTextDiff(files[0]!), true);
  assert.equal(hasTextDiff(files[1]!), false);
  assert.equal(hasTextDiff(file({ newMode: '100755' })), false);
});

test('a rewind’s plan reads as what happens to each file', () => {
  assert.deepEqual((['added', 'deleted', 'modified', 'renamed'] as const).map(rewindWord), [
    'restored',
    'removed',
    'changed back',
    'moved back',
  ]);
});

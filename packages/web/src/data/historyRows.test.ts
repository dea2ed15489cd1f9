import assert from 'node:assert/strict';
import { test } from 'node:test';
import { historyRows } from './historyRows.ts';
import { claudeId, historyList, historySession } from './testing/historyFixtures.ts';

const list = historyList([
  {
    cwd: '/work/api',
    cwdExists: true,
    sessions: [historySession({ claudeSessionId: claudeId(1) }), historySession({ claudeSessionId: claudeId(2) })],
  },
  { cwd: '/work/gone', cwdExists: false, sessions: [historySession({ claudeSessionId: claudeId(3) })] },
]);

test('each project is a header line followed by its sessions; the last of a group is marked', () => {
  const rows = historyRows(list, new Set(), false);
  assert.deepEqual(
    rows.map((row) => row.key),
    ['p:/work/api', `s:${claudeId(1)}`, `s:${claudeId(2)}`, 'p:/work/gone', `s:${claudeId(3)}`],
  );
  assert.deepEqual(
    rows.map((row) => (row.kind === 'session' ? row.last : row.open)),
    [true, false, true, true, true],
  );
});

test('a folded project shows only its header, except while searching (a hit never hides)', () => {
  const folded = new Set(['/work/api']);
  assert.deepEqual(
    historyRows(list, folded, false).map((row) => row.key),
    ['p:/work/api', 'p:/work/gone', `s:${claudeId(3)}`],
  );
  const header = historyRows(list, folded, false)[0];
  assert.equal(header?.kind === 'project' && header.open, false);
  assert.equal(historyRows(list, folded, true).length, 5);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { baseName, formatAgo, formatCost, formatDuration, formatElapsed, formatTokens } from './format.ts';

test('durations, clocks, tokens, costs and names read the way a person says them', () => {
  assert.equal(formatDuration(420), '420 ms');
  assert.equal(formatDuration(4200), '4.2 s');
  assert.equal(formatDuration(72_000), '1 m 12 s');
  assert.equal(formatDuration(7_500_000), '2 h 5 m');
  // Sub-second is said in ms (a 623 ms turn is not "1 s"); no unit ever rounds up to its own limit.
  assert.equal(formatDuration(623), '623 ms');
  assert.equal(formatDuration(999.6), '1.0 s');
  assert.equal(formatDuration(9_960), '10 s');
  assert.equal(formatDuration(59_600), '1 m 0 s');
  assert.equal(formatDuration(119_600), '2 m 0 s');
  assert.equal(formatDuration(3_599_900), '1 h 0 m');
  assert.equal(formatElapsed(7_000), '0:07');
  assert.equal(formatElapsed(750_000), '12:30');
  assert.equal(formatElapsed(3_723_000), '1:02:03');
  assert.equal(formatTokens(850), '850');
  assert.equal(formatTokens(1234), '1.2k');
  assert.equal(formatTokens(123_456), '123k');
  assert.equal(formatTokens(1_234_567), '1.2M');
  assert.equal(formatCost(null), null);
  assert.equal(formatCost(0.0042), '$0.0042');
  assert.equal(formatCost(3.4), '$3.40');
  assert.equal(baseName('/work/project/'), 'project');
  assert.equal(baseName('C:\\src\\app.ts'), 'app.ts');
});

test('a last activity reads as how long ago, then as a date', () => {
  const now = Date.UTC(2026, 11, 7, 12);
  assert.equal(formatAgo(now - 20_000, now), 'just now');
  assert.equal(formatAgo(now - 5 * 60_000, now), '5 min ago');
  assert.equal(formatAgo(now - 3 * 3_600_000, now), '3 h ago');
  assert.equal(formatAgo(now - 30 * 3_600_000, now), 'yesterday');
  assert.equal(formatAgo(now - 4 * 86_400_000, now), '4 days ago');
  assert.equal(formatAgo(Date.UTC(2026, 0, 2), now), '2026-01-02');
  assert.equal(formatAgo(now + 60_000, now), 'just now', 'a clock ahead of this one is not the future');
});

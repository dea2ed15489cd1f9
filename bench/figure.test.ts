import assert from 'node:assert/strict';
import { test } from 'node:test';
import { measuredFigure } from './figure.ts';
import { median } from './stats.ts';

const fields = { id: 'x', title: 'x', unit: 'ms', target: { comparison: '<', value: 100 } as const, details: {} };

test('a measured figure says whether its value meets the target', () => {
  assert.deepEqual(measuredFigure({ ...fields, value: 40 }), { ...fields, value: 40, met: true });
  assert.equal(measuredFigure({ ...fields, value: 140 }).met, false);
  assert.equal(measuredFigure({ ...fields, target: null, value: 140 }).met, null);
});

test('a figure of no samples is skipped, never a number or a missed target', () => {
  for (const value of [median([]), Number.POSITIVE_INFINITY, 1 / 0 - 1 / 0]) {
    const figure = measuredFigure({ ...fields, value });
    assert.equal(figure.value, null);
    assert.equal(figure.met, null);
    assert.match(figure.skipped ?? '', /measured nothing/);
  }
});

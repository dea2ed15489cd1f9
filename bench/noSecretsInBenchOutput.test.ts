import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { canaries, canariesIn } from '@outrigger/claude-sdk-sidecar/testing';
import { openBenchModel } from './benchModel.ts';
import { measureFirstToken } from './firstToken.ts';

/*
 * The bench's output (its figures, which `npm run bench` writes to results/latest.json and prints) holds
 * no credential of the machine it runs on: with the canary API key in the bench's environment and the canary
 * settings-file credential in its user's Claude settings, one round of the figure that runs every path (raw
 * query(), the sidecar, the host over HTTP) is taken and searched.
 */

test('no credential of the machine in the bench figures', async () => {
  const home = await mkdtemp(join(tmpdir(), 'outrigger-bench-canary-'));
  const saved = { key: process.env.ANTHROPIC_API_KEY, home: process.env.HOME };
  await mkdir(join(home, '.claude'));
  await writeFile(
    join(home, '.claude', 'settings.json'),
    JSON.stringify({ env: { ANTHROPIC_AUTH_TOKEN: canaries.settingsCredential } }),
  );
  process.env.ANTHROPIC_API_KEY = canaries.credential;
  process.env.HOME = home;
  const model = await openBenchModel();
  try {
    const figures = await measureFirstToken(model, 1);
    assert.equal(figures.length, 3);
    assert.ok(
      figures.every((figure) => typeof figure.value === 'number'),
      'the figures were measured',
    );
    assert.deepEqual(canariesIn(JSON.stringify(figures)), []);
  } finally {
    await model.close();
    if (saved.key === undefined) delete process.env.ANTHROPIC_API_KEY;
    else process.env.ANTHROPIC_API_KEY = saved.key;
    process.env.HOME = saved.home;
    await rm(home, { recursive: true, force: true });
  }
});

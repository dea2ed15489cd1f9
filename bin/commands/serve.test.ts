import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../outrigger.ts', import.meta.url));

function run(args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', timeout: 30_000 });
}

test('`outrigger serve --help` prints its usage and starts nothing', () => {
  const result = run(['serve', '--help']);
  assert.equal(result.status, 0);
  assert.match(result.stdout, /^usage: outrigger serve \[--port N\]/);
  for (const option of ['--port', '--host', '--data-dir', '--allow-root', '--tool-timeout']) {
    assert.ok(result.stdout.includes(option), option);
  }
});

test('`outrigger serve` with a bad option says what is wrong and exits 2', () => {
  const result = run(['serve', '--port', 'many']);
  assert.equal(result.status, 2);
  assert.match(result.stderr, /outrigger serve: --port must be a port number/);
  assert.equal(result.stdout, '');
});

test('`outrigger --help` lists serve', () => {
  assert.match(run(['--help']).stdout, /^ {2}serve /m);
});

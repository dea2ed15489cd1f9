import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('./outrigger.ts', import.meta.url));

function run(args: string[], input = '') {
  return spawnSync(process.execPath, [cli, ...args], { input, encoding: 'utf8', timeout: 30_000 });
}

test('--help lists every subcommand and exits 0', () => {
  const result = run(['--help']);
  assert.equal(result.status, 0);
  for (const name of ['start', 'sidecar', 'mock-anthropic'])
    assert.match(result.stdout, new RegExp(`^  ${name} `, 'm'));
});

test('an unknown subcommand names itself on stderr and exits 2', () => {
  const result = run(['nope']);
  assert.equal(result.status, 2);
  assert.match(result.stderr, /unknown command 'nope'/);
  assert.equal(result.stdout, '');
});

test('`outrigger sidecar` serves protocol 10 on stdin/stdout and exits 0 at end of input', () => {
  const lines = [
    JSON.stringify({ version: 10, id: 'close-1', type: 'close', payload: { agentSessionId: 'nobody' } }),
    JSON.stringify({ version: 9, id: 'old-1', type: 'close' }),
  ];
  const result = run(['sidecar'], `${lines.join('\n')}\n`);
  assert.equal(result.status, 0);
  const responses = result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.deepEqual(
    responses.sort((a, b) => String(a.id).localeCompare(String(b.id))),
    [
      { version: 10, id: 'close-1', type: 'ok' },
      { version: 10, id: 'old-1', type: 'error', payload: { error: 'unsupported sidecar protocol version 9' } },
    ],
  );
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('./outrigger.ts', import.meta.url));
const root = fileURLToPath(new URL('..', import.meta.url));

/** The environment without anything npm sets for a script, so each test says what it runs under. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('npm_')));
}

function run(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}) {
  return spawnSync(process.execPath, [cli, ...args], {
    input: options.input ?? '',
    encoding: 'utf8',
    timeout: 30_000,
    env: options.env ?? cleanEnv(),
  });
}

test('--help lists every subcommand and exits 0', () => {
  const result = run(['--help']);
  assert.equal(result.status, 0);
  for (const name of ['chat', 'doctor', 'sidecar', 'mock-anthropic'])
    assert.match(result.stdout, new RegExp(`^  ${name} `, 'm'));
  assert.match(result.stdout, /^ {2}chat .*\(also: start\)$/m);
});

test('--version prints the package version', () => {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const result = run(['--version']);
  assert.equal(result.status, 0);
  assert.equal(result.stdout, `outrigger ${version}\n`);
});

test('every subcommand answers --help and -h with its usage and exits 0, without starting anything', () => {
  for (const [args, usage] of [
    [['chat', '--help'], /^usage: outrigger chat /],
    [['start', '-h'], /^usage: outrigger chat /],
    [['sidecar', '--help'], /^usage: outrigger sidecar/],
    [['sidecar', '-h'], /^usage: outrigger sidecar/],
    [['mock-anthropic', '--help'], /^usage: outrigger mock-anthropic/],
    [['doctor', '--help'], /^usage: outrigger doctor/],
  ] as const) {
    // With no input at all, a sidecar that started would answer nothing and exit; help must still print.
    const result = run([...args]);
    assert.equal(result.status, 0, `${args.join(' ')}: ${result.stderr}`);
    assert.match(result.stdout, usage, args.join(' '));
    assert.equal(result.stderr, '', args.join(' '));
  }
});

test('an unknown subcommand names itself on stderr and exits 2', () => {
  const result = run(['nope']);
  assert.equal(result.status, 2);
  assert.match(result.stderr, /unknown command 'nope'/);
  assert.equal(result.stdout, '');
});

test('an unknown option is a usage error (exit 2) for every subcommand, not a stack trace', () => {
  for (const name of ['chat', 'doctor', 'sidecar', 'mock-anthropic']) {
    const result = run([name, '--bogus']);
    assert.equal(result.status, 2, name);
    assert.match(result.stderr, new RegExp(`^outrigger ${name}: Unknown option '--bogus'`), name);
    assert.doesNotMatch(result.stderr, /\n\s+at /, `${name}: no stack trace`);
  }
});

test('chat checks --cwd before anything starts: a missing directory or a file is a clear error', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'outrigger-cwd-'));
  try {
    const missing = run(['chat', '--cwd', join(dir, 'nope'), '--data-dir', dir]);
    assert.equal(missing.status, 2);
    assert.equal(missing.stderr, `outrigger chat: --cwd ${join(dir, 'nope')}: no such directory\n`);
    assert.equal(missing.stdout, '', 'no banner: neither the model nor the sidecar was started');
    await writeFile(join(dir, 'file'), '');
    const file = run(['chat', '--cwd', join(dir, 'file'), '--data-dir', dir]);
    assert.equal(file.status, 2);
    assert.match(file.stderr, /--cwd .*file: not a directory\n$/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('run as an npm script, an option whose value npm split off is reported with the form that works', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'outrigger-npm-'));
  try {
    // `npm start --data-dir DIR`: npm keeps `true` and passes DIR on alone.
    const npmStart = { npm_lifecycle_event: 'start', npm_lifecycle_script: 'node bin/outrigger.ts start' };
    const lost = run(['chat', dir], { env: { ...cleanEnv(), ...npmStart, npm_config_data_dir: 'true' } });
    assert.equal(lost.status, 2);
    assert.match(lost.stderr, /npm kept --data-dir for itself .*npm start -- --data-dir VALUE/);
    // A bare argument under npm gets the same hint.
    const npmRun = { npm_lifecycle_event: 'outrigger', npm_lifecycle_script: 'node bin/outrigger.ts' };
    const bare = run(['chat', dir], { env: { ...cleanEnv(), ...npmRun } });
    assert.equal(bare.status, 2);
    assert.match(bare.stderr, /Unexpected argument .*npm run outrigger -- chat --option VALUE/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('every bin named in a package.json is committed executable, as npm makes it on install', (context) => {
  const bins = ['package.json', 'packages/claude-sdk-sidecar/package.json'].flatMap((file) => {
    const { bin } = JSON.parse(readFileSync(join(root, file), 'utf8')) as { bin?: Record<string, string> };
    return Object.values(bin ?? {}).map((path) => join(file, '..', path));
  });
  const listed = spawnSync('git', ['ls-files', '--stage', '--', ...bins], { cwd: root, encoding: 'utf8' });
  if (listed.status !== 0 || listed.stdout === '') return context.skip('not a git checkout');
  const modes = Object.fromEntries(
    listed.stdout
      .trim()
      .split('\n')
      .map((line) => [line.split('\t')[1], line.split(' ')[0]]),
  );
  for (const bin of bins) assert.equal(modes[bin], '100755', bin);
});

test('`outrigger sidecar` serves protocol 10 on stdin/stdout and exits 0 at end of input', () => {
  const lines = [
    JSON.stringify({ version: 10, id: 'close-1', type: 'close', payload: { agentSessionId: 'nobody' } }),
    JSON.stringify({ version: 9, id: 'old-1', type: 'close' }),
  ];
  const result = run(['sidecar'], { input: `${lines.join('\n')}\n` });
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

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { shellQuote, terminalCommand, terminalConfigDir } from './terminalCommand.ts';

const run = promisify(execFile);

let root: string;
let bin: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), 'outrigger-terminal-'));
  bin = join(root, 'bin');
  await mkdir(bin);
  // A `claude` that says where it ran, with which config dir and arguments, one per line (NUL-free).
  await writeFile(
    join(bin, 'claude'),
    '#!/bin/sh\nprintf "cwd=%s\\n" "$PWD"\nprintf "config=%s\\n" "$CLAUDE_CONFIG_DIR"\nfor a in "$@"; do printf "arg=%s\\n" "$a"; done\n',
  );
  await chmod(join(bin, 'claude'), 0o755);
});
after(() => rm(root, { recursive: true, force: true }));

test('plain values stay as they are; anything a shell would read differently is single-quoted', () => {
  assert.equal(shellQuote('/home/me/project-1'), '/home/me/project-1');
  assert.equal(shellQuote('3f0c6c1e-2b7a-4d51-9a0e-1c2b3d4e5f60'), '3f0c6c1e-2b7a-4d51-9a0e-1c2b3d4e5f60');
  assert.equal(shellQuote('/a b'), `'/a b'`);
  assert.equal(shellQuote(`it's`), `'it'\\''s'`);
  assert.equal(shellQuote(''), `''`);
  assert.equal(
    terminalCommand({ cwd: '/home/me/work', providerSessionId: 'abc' }),
    'cd /home/me/work && claude --resume abc',
  );
  assert.equal(
    terminalCommand({ cwd: '/home/me/my work', providerSessionId: 'abc', configDir: '/srv/claude config' }),
    `cd '/home/me/my work' && CLAUDE_CONFIG_DIR='/srv/claude config' claude --resume abc`,
  );
});

test('the config dir is named only when it is not the default a terminal uses', () => {
  assert.equal(terminalConfigDir('/home/me/.claude', '/home/me'), undefined);
  assert.equal(terminalConfigDir('/home/me/.claude/', '/home/me'), undefined);
  assert.equal(terminalConfigDir('/home/me/.claude-work', '/home/me'), '/home/me/.claude-work');
  assert.equal(terminalConfigDir('/home/other/.claude', '/home/me'), '/home/other/.claude');
});

test('through bash, a directory with spaces, quotes, $, backticks and a newline reaches claude as it is', async () => {
  const cwd = join(root, `it's a "$HOME" \`dir\`\nwith $(echo two) lines`);
  const configDir = join(root, `config $USER's`);
  await mkdir(cwd);
  const command = `${terminalCommand({ cwd, providerSessionId: 'the-id', configDir })} -p 'hello'`;
  const { stdout } = await run('bash', ['-c', command], {
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: root },
    cwd: root,
  });
  assert.equal(stdout, `cwd=${cwd}\nconfig=${configDir}\narg=--resume\narg=the-id\narg=-p\narg=hello\n`);
});

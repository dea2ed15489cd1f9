import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runGit } from './runGit.ts';

test("attack: a repository's own config cannot make the host's git run a program (fsmonitor, hooks)", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'outrigger-rungit-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const marker = join(dir, 'ran');
  const program = join(dir, 'payload.sh');
  await writeFile(program, `#!/bin/sh\necho ran >> '${marker}'\n`);
  await chmod(program, 0o755);
  await runGit(['init', '-q'], { cwd: dir });
  await runGit(['config', 'core.fsmonitor', program], { cwd: dir });
  await runGit(['config', 'core.hooksPath', dir], { cwd: dir });
  await writeFile(join(dir, 'post-checkout'), `#!/bin/sh\necho hook >> '${marker}'\n`);
  await chmod(join(dir, 'post-checkout'), 0o755);
  await writeFile(join(dir, 'a.txt'), 'a\n');
  // Precondition: git run plainly in this repository does run the program.
  execFileSync('git', ['status', '--porcelain'], { cwd: dir, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } });
  assert.match(await readFile(marker, 'utf8'), /ran/, 'precondition: fsmonitor runs for a plain git');
  await rm(marker);

  await runGit(['status', '--porcelain'], { cwd: dir });
  await runGit(['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: dir });
  await runGit(['add', 'a.txt'], { cwd: dir });
  await runGit(['-c', 'user.name=u', '-c', 'user.email=u@u', 'commit', '-qm', 'one'], { cwd: dir });
  await runGit(['checkout', '-q', '-b', 'other'], { cwd: dir });

  assert.equal(await readFile(marker, 'utf8').catch(() => 'nothing ran'), 'nothing ran');
});

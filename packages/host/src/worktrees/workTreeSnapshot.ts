import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runGit } from '../git/runGit.ts';

/**
 * The tree of the files in the work tree at `cwd` as they are now (committed, modified, staged or untracked;
 * ignored files left out), written without touching the work tree's own index: the session's `git status`
 * stays as it was. A fresh index starts from HEAD so files that are tracked but ignored stay in.
 */
export async function workTreeSnapshot(cwd: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'outrigger-index-'));
  const env = { GIT_INDEX_FILE: join(dir, 'index') };
  try {
    await runGit(['read-tree', 'HEAD'], { cwd, env });
    await runGit(['add', '-A'], { cwd, env });
    return (await runGit(['write-tree'], { cwd, env })).stdout.toString('utf8').trim();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

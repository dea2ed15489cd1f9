import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TestContext } from 'node:test';
import { runGit } from '../../git/runGit.ts';

const TEST_IDENTITY = {
  GIT_AUTHOR_NAME: 'Test User',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test User',
  GIT_COMMITTER_EMAIL: 'test@example.com',
};

/** A fresh directory under the system's temporary one, removed when the test ends. */
export async function tempDir(t: TestContext, prefix = 'outrigger-worktrees-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** git's output in `cwd` as text, without its final newline. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await runGit(args, { cwd, env: TEST_IDENTITY })).stdout.toString('utf8').replace(/\n$/, '');
}

export async function writeFiles(root: string, files: Readonly<Record<string, string>>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), content);
  }
}

export async function commitAll(cwd: string, message: string): Promise<string> {
  await git(cwd, 'add', '-A');
  await git(cwd, 'commit', '--quiet', '-m', message);
  return git(cwd, 'rev-parse', 'HEAD');
}

/**
 * A repository on `main` with one commit of `files`, and a directory for its session worktrees, both
 * removed when the test ends.
 */
export async function repositoryWith(
  t: TestContext,
  files: Readonly<Record<string, string>>,
): Promise<{ repo: string; worktreesDir: string }> {
  const root = await tempDir(t);
  const repo = join(root, 'repo');
  await mkdir(repo);
  await git(repo, 'init', '--quiet', '--initial-branch=main');
  await writeFiles(repo, files);
  await commitAll(repo, 'initial');
  return { repo, worktreesDir: join(root, 'data', 'worktrees') };
}

/** Every branch and its commit, one `refs/heads/<name> <sha>` per line. */
export function branchTips(repo: string): Promise<string> {
  return git(repo, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/');
}

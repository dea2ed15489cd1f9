import { type GitOptions, runGit } from '../git/runGit.ts';

/** git's answer without its final newline (a path may end in a space, so nothing else is trimmed). */
export async function gitText(args: readonly string[], options: GitOptions): Promise<string> {
  return (await runGit(args, options)).stdout.toString('utf8').replace(/\n$/, '');
}

/** The commit `revision` names, or undefined when it names none (a missing branch, an unborn HEAD). */
export async function commitOf(cwd: string, revision: string): Promise<string | undefined> {
  const output = await gitText(['rev-parse', '-q', '--verify', `${revision}^{commit}`], { cwd, okExitCodes: [1] });
  return output === '' ? undefined : output;
}

/** The branch checked out in the work tree at `cwd` (`main`, not `refs/heads/main`); null when HEAD is detached. */
export async function branchOfHead(cwd: string): Promise<string | null> {
  const ref = await gitText(['symbolic-ref', '-q', 'HEAD'], { cwd, okExitCodes: [1] });
  return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null;
}

export async function isAncestor(cwd: string, ancestor: string, descendant: string): Promise<boolean> {
  const { exitCode } = await runGit(['merge-base', '--is-ancestor', ancestor, descendant], { cwd, okExitCodes: [1] });
  return exitCode === 0;
}

/** The paths two commits' trees differ in, both sides of a rename included. */
export async function changedPaths(cwd: string, from: string, to: string): Promise<string[]> {
  const output = await runGit(['diff-tree', '-r', '-z', '--no-renames', '--name-only', from, to], { cwd });
  return nulFields(output.stdout);
}

export function nulFields(output: Buffer): string[] {
  return output
    .toString('utf8')
    .split('\0')
    .filter((field) => field !== '');
}

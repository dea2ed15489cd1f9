import { isAbsolute } from 'node:path';
import type { WorktreeCheckout } from './worktreeCheckout.ts';

const MAX_SLUG_LENGTH = 40;
const FALLBACK_SLUG = 'session';
const COMMIT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
/** The sequences `git check-ref-format` refuses anywhere in a name. */
const FORBIDDEN_IN_REF = /[~^:?*[\\]|\.\.|@\{|\/\/|\/\.|\.lock(?:\/|$)/;

/** A session title or id as a branch and directory name: `[a-z0-9-]`, at most 40 characters, never empty. */
export function sessionSlug(name: string): string {
  const slug = name
    .normalize('NFKD')
    // Accents come apart from their letters under NFKD: `é` becomes `e`, not a dash.
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-+$/, '');
  return slug === '' ? FALLBACK_SLUG : slug;
}

/**
 * A branch name git accepts (`git check-ref-format --branch`'s rules) that cannot be read as an option: the
 * names in a stored worktree record go to git as arguments, so one starting with `-` must never get there.
 */
export function isBranchName(name: string): boolean {
  if (name === '' || name === '@') return false;
  if (/^[-./]/.test(name) || /[./]$/.test(name)) return false;
  if ([...name].some((character) => character <= ' ' || character === '\u007f')) return false;
  return !FORBIDDEN_IN_REF.test(name);
}

export function isCommitId(value: string): boolean {
  return COMMIT_ID.test(value);
}

/** Refuses a worktree record (it comes back from the store) that git could misread. */
export function assertValidCheckout(checkout: WorktreeCheckout): void {
  const problems = [
    ...[checkout.repoRoot, checkout.path, checkout.sessionCwd].flatMap((path) =>
      isAbsolute(path) && !path.includes('\0') ? [] : [`not an absolute path: ${JSON.stringify(path)}`],
    ),
    ...[checkout.branch, checkout.baseBranch ?? 'HEAD'].flatMap((branch) =>
      isBranchName(branch) ? [] : [`not a branch name: ${JSON.stringify(branch)}`],
    ),
    ...(isCommitId(checkout.baseCommit) ? [] : [`not a commit id: ${JSON.stringify(checkout.baseCommit)}`]),
  ];
  if (problems.length > 0) throw new Error(`invalid worktree record: ${problems.join('; ')}`);
}

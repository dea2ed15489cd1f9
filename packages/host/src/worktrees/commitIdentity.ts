import { gitText } from './repositoryReads.ts';

export type CommitIdentity = Readonly<Record<string, string>>;

/** Who the commits Outrigger makes of a session's work are by: the agent's work, not the user's. */
export const OUTRIGGER_IDENTITY: CommitIdentity = identityOf('Outrigger', 'outrigger@localhost');

/**
 * Who a merge commit into the user's branch is by. Merging is the user's action, so the repository's own
 * identity (`git config --local user.name`/`user.email`) signs it when both are set. The user's global
 * configuration is never read (git runs without it, so no hook or helper of theirs runs in the host);
 * without a local identity the commit is Outrigger's, as git would otherwise have to guess one.
 */
export async function mergeCommitIdentity(repoRoot: string): Promise<CommitIdentity> {
  const name = await localConfig(repoRoot, 'user.name');
  const email = await localConfig(repoRoot, 'user.email');
  return name === '' || email === '' ? OUTRIGGER_IDENTITY : identityOf(name, email);
}

function identityOf(name: string, email: string): CommitIdentity {
  return { GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email, GIT_COMMITTER_NAME: name, GIT_COMMITTER_EMAIL: email };
}

async function localConfig(cwd: string, key: string): Promise<string> {
  return (await gitText(['config', '--local', '--get', key], { cwd, okExitCodes: [1] })).trim();
}

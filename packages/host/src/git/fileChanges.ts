import type { GitOutput } from './runGit.ts';

/** One file that differs between two trees, as git sees it (renames detected). */
export interface FileChange {
  readonly path: string;
  /** The path before a rename; null otherwise. */
  readonly oldPath: string | null;
  readonly status: 'added' | 'modified' | 'deleted' | 'renamed';
  /** git could not show it as text (a NUL byte, or marked binary): no line counts, no hunks. */
  readonly binary: boolean;
  readonly additions: number;
  readonly deletions: number;
  /** git's file modes (`100644`, `100755`, `120000` for a symlink); null on the side where the file is absent. */
  readonly oldMode: string | null;
  readonly newMode: string | null;
}

/** The arguments of `git diff-tree` that `parseFileChanges` reads: raw records and line counts, NUL-separated. */
export const FILE_CHANGES_ARGS = ['diff-tree', '-r', '-z', '-M', '--raw', '--numstat', '--no-commit-id'] as const;

const ABSENT_MODE = '000000';
const STATUS: Record<string, FileChange['status']> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  T: 'modified',
};

/**
 * Reads `git diff-tree -r -z -M --raw --numstat <from> <to>`: first one raw record per file
 * (`:oldMode newMode oldSha newSha status\0path\0[newPath\0]`), then one count record per file in the
 * same order (`added\tdeleted\tpath\0`, or `added\tdeleted\t\0old\0new\0` for a rename; `-` for binary).
 */
export function parseFileChanges(output: GitOutput | Buffer): FileChange[] {
  const text = (Buffer.isBuffer(output) ? output : output.stdout).toString('utf8');
  const fields = text.split('\0');
  const raw: {
    oldMode: string;
    newMode: string;
    status: FileChange['status'];
    path: string;
    oldPath: string | null;
  }[] = [];
  let at = 0;
  while (at < fields.length && fields[at]!.startsWith(':')) {
    const [oldMode, newMode, , , code] = fields[at]!.slice(1).split(' ');
    const letter = (code ?? '').charAt(0);
    const status = STATUS[letter];
    if (status === undefined) throw new Error(`git reported a change of an unknown kind: ${letter}`);
    if (status === 'renamed') {
      raw.push({ oldMode: oldMode!, newMode: newMode!, status, oldPath: fields[at + 1]!, path: fields[at + 2]! });
      at += 3;
    } else {
      raw.push({ oldMode: oldMode!, newMode: newMode!, status, oldPath: null, path: fields[at + 1]! });
      at += 2;
    }
  }
  const changes: FileChange[] = [];
  for (const file of raw) {
    const counts = fields[at] ?? '';
    // A rename's count record names its paths in the two fields after it.
    at += file.status === 'renamed' ? 3 : 1;
    const [added = '-', deleted = '-'] = counts.split('\t');
    const binary = added === '-' || deleted === '-';
    changes.push({
      path: file.path,
      oldPath: file.oldPath,
      status: file.status,
      binary,
      additions: binary ? 0 : Number(added),
      deletions: binary ? 0 : Number(deleted),
      oldMode: file.oldMode === ABSENT_MODE ? null : file.oldMode,
      newMode: file.newMode === ABSENT_MODE ? null : file.newMode,
    });
  }
  return changes;
}

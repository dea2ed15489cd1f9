import type { ChangedFile } from '@outrigger/host-api';

const EXECUTABLE = '100755';
const SYMLINK = '120000';

/** `1 file changed`, `6 files changed`. */
export function filesChangedText(count: number): string {
  if (count === 0) return 'No files changed';
  return `${count} ${count === 1 ? 'file' : 'files'} changed`;
}

/** The path as a list shows it: a rename reads `old → new`. */
export function displayPath(file: ChangedFile): string {
  return file.status === 'renamed' && file.oldPath !== null ? `${file.oldPath} → ${file.path}` : file.path;
}

/**
 * What git's file modes mean to a person: a mode change (`now executable`), or what a new file is when
 * it is not a plain one. Null for a plain file whose mode stayed.
 */
export function modeNote(file: ChangedFile): string | null {
  const { oldMode, newMode } = file;
  if (oldMode === null || newMode === null) {
    if (newMode === EXECUTABLE) return 'executable';
    if (newMode === SYMLINK) return 'symlink';
    return null;
  }
  if (oldMode === newMode) return null;
  if (newMode === EXECUTABLE) return 'now executable';
  if (oldMode === EXECUTABLE && newMode !== SYMLINK) return 'no longer executable';
  if (newMode === SYMLINK) return 'now a symlink';
  if (oldMode === SYMLINK) return 'no longer a symlink';
  return `mode ${oldMode} → ${newMode}`;
}

const rewindWords: Readonly<Record<ChangedFile['status'], string>> = {
  added: 'restored',
  deleted: 'removed',
  modified: 'changed back',
  renamed: 'moved back',
};

/**
 * What a rewind does to a file, in its own words: its plan is the diff from now to the state it goes back
 * to, so a file the turn deleted is `added` by it, which reads as the file coming back.
 */
export function rewindWord(status: ChangedFile['status']): string {
  return rewindWords[status];
}

/** Lines added and removed over a list (binary files count none). */
export function lineTotals(files: readonly ChangedFile[]): { additions: number; deletions: number } {
  let additions = 0;
  let deletions = 0;
  for (const file of files) {
    additions += file.additions;
    deletions += file.deletions;
  }
  return { additions, deletions };
}

/** A file's change in one sentence, for a screen reader (the list shows it as tags and counts). */
export function changeSentence(file: ChangedFile): string {
  const parts = [displayPath(file), file.status];
  if (file.binary) parts.push('binary');
  else if (file.additions > 0 || file.deletions > 0)
    parts.push(`${file.additions} ${file.additions === 1 ? 'line' : 'lines'} added, ${file.deletions} removed`);
  const mode = modeNote(file);
  if (mode !== null) parts.push(mode);
  return parts.join(', ');
}

/** Whether the diff has text to show: a binary file or a change of mode alone has no hunks. */
export function hasTextDiff(file: ChangedFile): boolean {
  return !file.binary && (file.additions > 0 || file.deletions > 0);
}

import type { ChangedFile, DiffHunk, FileChange } from '@outrigger/host-api';
import { structuredPatch } from 'diff';

interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/**
 * A file change as one git-style unified diff, the text a diff view parses: Claude Code's own
 * structured patch (with real line numbers) when it reported one, otherwise the edits of the input
 * (line numbers relative to each edited snippet), or the whole new file for a Write.
 */
export function unifiedDiffOf(change: FileChange): string {
  const path = change.path.replace(/^\/+/, '');
  if (change.structuredPatch !== undefined && change.structuredPatch.length > 0)
    return render(path, change.structuredPatch, 'changed');
  if (change.operation === 'create' && change.content !== undefined) {
    const lines = splitLines(change.content);
    return render(
      path,
      [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: lines.length, lines: lines.map((l) => `+${l}`) }],
      'added',
    );
  }
  const hunks = change.edits.flatMap(
    (edit) =>
      structuredPatch(path, path, withNewline(edit.oldText), withNewline(edit.newText), '', '', { context: 3 }).hunks,
  );
  return render(path, hunks, 'changed');
}

/**
 * A checkpoint diff's hunks (as the host cut them) as the text a diff view parses, in the host's order, so
 * the view's hunk `n` is the host's hunk `n` (what a revert names). The header carries placeholder names:
 * a path with spaces would not parse, and the view shows the path itself.
 */
export function unifiedDiffOfHunks(file: ChangedFile, hunks: readonly DiffHunk[]): string {
  return render('file', hunks, file.status === 'added' ? 'added' : file.status === 'deleted' ? 'deleted' : 'changed');
}

/** Lines added and removed, for the card's one-line summary. */
export function diffStats(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of diff.split('\n')) {
    if (line.startsWith('+++') || line.startsWith('---')) continue;
    if (line.startsWith('+')) added += 1;
    else if (line.startsWith('-')) removed += 1;
  }
  return { added, removed };
}

function render(path: string, hunks: readonly Hunk[], kind: 'added' | 'deleted' | 'changed'): string {
  const header =
    kind === 'added'
      ? [`diff --git a/${path} b/${path}`, 'new file mode 100644', '--- /dev/null', `+++ b/${path}`]
      : kind === 'deleted'
        ? [`diff --git a/${path} b/${path}`, 'deleted file mode 100644', `--- a/${path}`, '+++ /dev/null']
        : [`diff --git a/${path} b/${path}`, `--- a/${path}`, `+++ b/${path}`];
  const body = hunks.flatMap((hunk) => [
    `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
    ...hunk.lines.filter((line) => !line.startsWith('\\')),
  ]);
  return `${[...header, ...body].join('\n')}\n`;
}

function withNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * The change an Edit, MultiEdit or Write call asks to make, read from its input: what an approval
 * shows before the tool ran (the inbox has only the interaction, not the call's `fileChange`).
 */
export function fileChangeFromInput(toolName: string, input: Record<string, unknown>): FileChange | null {
  const path = str(input.file_path);
  if (path === undefined) return null;
  if (toolName === 'Write') {
    const content = str(input.content);
    return content === undefined ? null : { path, operation: 'create', edits: [], content };
  }
  if (toolName === 'Edit') {
    const oldText = str(input.old_string);
    const newText = str(input.new_string);
    if (oldText === undefined || newText === undefined) return null;
    return { path, operation: 'edit', edits: [{ oldText, newText, replaceAll: input.replace_all === true }] };
  }
  if (toolName === 'MultiEdit' && Array.isArray(input.edits)) {
    const edits = input.edits.flatMap((edit) => {
      const record = (edit ?? {}) as Record<string, unknown>;
      const oldText = str(record.old_string);
      const newText = str(record.new_string);
      return oldText === undefined || newText === undefined ? [] : [{ oldText, newText }];
    });
    return edits.length === 0 ? null : { path, operation: 'multi_edit', edits };
  }
  return null;
}

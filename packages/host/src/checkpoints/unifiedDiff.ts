/** One `@@` hunk of a unified diff. */
export interface DiffHunk {
  /** Its position among the file's hunks, from 0. */
  readonly index: number;
  /** The `@@ -a,b +c,d @@` line, with the function context git adds after it. */
  readonly header: string;
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  /** Each starts with ` `, `+`, `-` or `\` (`\ No newline at end of file`). */
  readonly lines: string[];
}

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;
const DEV_NULL = '/dev/null';

/**
 * The hunks of one file's unified diff (git's patch of a single path). A hunk's body is read by the line
 * counts of its header, so a line of the next file's header (`--- a/x`) is never taken for a deletion.
 */
export function parseHunks(patch: string): DiffHunk[] {
  const lines = patch.split('\n');
  const hunks: DiffHunk[] = [];
  let at = 0;
  while (at < lines.length) {
    const header = HUNK_HEADER.exec(lines[at]!);
    at += 1;
    if (header === null) continue;
    const hunk: DiffHunk = {
      index: hunks.length,
      header: lines[at - 1]!,
      oldStart: Number(header[1]),
      oldLines: header[2] === undefined ? 1 : Number(header[2]),
      newStart: Number(header[3]),
      newLines: header[4] === undefined ? 1 : Number(header[4]),
      lines: [],
    };
    at = readHunkBody(lines, at, hunk);
    hunks.push(hunk);
  }
  return hunks;
}

/** Appends the hunk's lines from `lines[at]` on; returns where the body ended. */
function readHunkBody(lines: readonly string[], at: number, hunk: DiffHunk): number {
  let oldLeft = hunk.oldLines;
  let newLeft = hunk.newLines;
  let next = at;
  while (next < lines.length) {
    const line = lines[next]!;
    const marker = line.charAt(0);
    const counted = oldLeft > 0 || newLeft > 0;
    if (marker === '\\') {
      // "\ No newline at end of file" belongs to the line before it, whether or not the counts are done.
    } else if (counted && marker === ' ') {
      oldLeft -= 1;
      newLeft -= 1;
    } else if (counted && marker === '-') {
      oldLeft -= 1;
    } else if (counted && marker === '+') {
      newLeft -= 1;
    } else {
      break;
    }
    hunk.lines.push(line);
    next += 1;
  }
  return next;
}

/**
 * A patch of hunk `index` alone, for `git apply`: the file's `---`/`+++` header and that hunk. A rename's
 * header names the new path on both sides, so that applying the hunk edits the file where it is now instead
 * of renaming it back; mode lines are left out, so undoing a hunk never changes a file's mode.
 */
export function hunkPatch(patch: string, index: number): string {
  const hunks = parseHunks(patch);
  const hunk = hunks[index];
  if (hunk === undefined) throw new RangeError(`the diff has ${hunks.length} hunk(s); there is no hunk ${index}`);
  const lines = patch.split('\n');
  const fileHeader = lines.slice(
    0,
    lines.findIndex((line) => HUNK_HEADER.test(line)),
  );
  const minus = fileHeader.find((line) => line.startsWith('--- '))?.slice(4);
  const plus = fileHeader.find((line) => line.startsWith('+++ '))?.slice(4);
  if (minus === undefined || plus === undefined) throw new RangeError('the diff has no ---/+++ file header');
  const oldName = minus === DEV_NULL || plus === DEV_NULL ? minus : plus;
  return `${[`--- ${oldName}`, `+++ ${plus}`, hunk.header, ...hunk.lines].join('\n')}\n`;
}

import type { ChangedFile, DiffHunk, FilePatch } from '@outrigger/host-api';
import { applyPatch, reversePatch, type StructuredPatch, structuredPatch } from 'diff';

/*
 * A directory's files in memory, and git's view of two states of one: which files changed (with renames,
 * modes and binaries), a file's hunks, one hunk undone. The fixture host's stand-in for the shadow
 * repository; real diffs of real text, so what the UI shows of them is what git would show.
 */

export type FileMode = '100644' | '100755' | '120000';

export interface FakeFile {
  readonly text: string;
  readonly mode: FileMode;
  readonly binary: boolean;
}

export type Tree = Map<string, FakeFile>;

const text = (content: string, mode: FileMode = '100644'): FakeFile => ({ text: content, mode, binary: false });
/** A NUL byte is how git tells a binary file. */
export const binaryFile = (label: string): FakeFile => ({ text: `\u0000PNG ${label}`, mode: '100644', binary: true });

export const greetSource = `export const greeting = 'Helo';

export function greet(name: string) {
  return \`\${greeting}, \${name}!\`;
}

export function greetAll(names: string[]) {
  const lines = [];
  for (const name of names) {
    lines.push(greet(name))
  }
  return lines.join("\\n");
}

export function shout(name: string) {
  return greet(name).toUpperCase();
}

export function whisper(name: string) {
  return greet(name).toLowerCase();
}

export function initials(name: string) {
  return name
    .split(' ')
    .map((part) => part[0])
    .join('');
}

export const defaultName = "world"
`;

/** The project every fixture directory starts as. */
export function projectFiles(): Tree {
  return new Map<string, FakeFile>([
    ['README.md', text('# Demo project\n\nA tiny project the fixture host edits.\n')],
    ['src/greet.ts', text(greetSource)],
    ['scripts/build.sh', text('#!/bin/sh\nset -e\ntsc -p .\n')],
    ['docs/setup.md', text('# Setup\n\nRun `npm install`, then `npm test`.\n')],
    ['assets/logo.png', binaryFile('v1')],
    ['build.log', text('built in 1.2 s\n')],
  ]);
}

/** What changed from `a` to `b`, by path; a file that moved with its content is a rename. */
export function diffTrees(a: Tree, b: Tree): ChangedFile[] {
  const added: string[] = [];
  const deleted: string[] = [];
  const files: ChangedFile[] = [];
  for (const path of new Set([...a.keys(), ...b.keys()])) {
    const before = a.get(path);
    const after = b.get(path);
    if (before === undefined) added.push(path);
    else if (after === undefined) deleted.push(path);
    else if (before.text !== after.text || before.mode !== after.mode) files.push(changed(path, null, before, after));
  }
  for (const path of deleted) {
    const before = a.get(path)!;
    const movedTo = added.find((candidate) => b.get(candidate)?.text === before.text);
    if (movedTo === undefined) {
      files.push(changed(path, null, before, undefined));
      continue;
    }
    added.splice(added.indexOf(movedTo), 1);
    files.push(changed(movedTo, path, before, b.get(movedTo)));
  }
  for (const path of added) files.push(changed(path, null, undefined, b.get(path)));
  return files.sort((x, y) => x.path.localeCompare(y.path));
}

function changed(path: string, oldPath: string | null, before?: FakeFile, after?: FakeFile): ChangedFile {
  const binary = before?.binary === true || after?.binary === true;
  let additions = 0;
  let deletions = 0;
  if (!binary)
    for (const hunk of hunksOf(before?.text ?? '', after?.text ?? '').hunks)
      for (const line of hunk.lines) {
        if (line.startsWith('+')) additions += 1;
        else if (line.startsWith('-')) deletions += 1;
      }
  return {
    path,
    oldPath,
    status:
      oldPath !== null ? 'renamed' : before === undefined ? 'added' : after === undefined ? 'deleted' : 'modified',
    binary,
    additions,
    deletions,
    oldMode: before?.mode ?? null,
    newMode: after?.mode ?? null,
  };
}

function hunksOf(before: string, after: string): StructuredPatch {
  return structuredPatch('a', 'b', before, after, '', '', { context: 3 });
}

/** One file's diff from `a` to `b` (`path` is its path in `b`, or its old path); undefined when it did not change. */
export function patchOf(a: Tree, b: Tree, path: string): FilePatch | undefined {
  const file = diffTrees(a, b).find((candidate) => candidate.path === path || candidate.oldPath === path);
  if (file === undefined) return undefined;
  const oldPath = file.oldPath ?? file.path;
  const header = [
    `diff --git a/${oldPath} b/${file.path}`,
    ...(file.status === 'added' ? [`new file mode ${file.newMode}`] : []),
    ...(file.status === 'deleted' ? [`deleted file mode ${file.oldMode}`] : []),
    ...(file.oldMode !== null && file.newMode !== null && file.oldMode !== file.newMode
      ? [`old mode ${file.oldMode}`, `new mode ${file.newMode}`]
      : []),
    ...(file.status === 'renamed' ? [`rename from ${oldPath}`, `rename to ${file.path}`] : []),
  ];
  if (file.binary)
    return {
      file,
      patch: [...header, `Binary files a/${oldPath} and b/${file.path} differ`, ''].join('\n'),
      hunks: [],
      truncated: false,
    };
  const hunks: DiffHunk[] = hunksOf(a.get(oldPath)?.text ?? '', b.get(file.path)?.text ?? '').hunks.map(
    (hunk, index) => {
      // git numbers an empty side from the line before it (`-0,0`); jsdiff from the line after.
      const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
      const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
      return {
        index,
        header: `@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`,
        oldStart,
        oldLines: hunk.oldLines,
        newStart,
        newLines: hunk.newLines,
        lines: hunk.lines,
      };
    },
  );
  const body = hunks.flatMap((hunk) => [hunk.header, ...hunk.lines]);
  const sides = [
    file.status === 'added' ? '--- /dev/null' : `--- a/${oldPath}`,
    file.status === 'deleted' ? '+++ /dev/null' : `+++ b/${file.path}`,
  ];
  return { file, patch: `${[...header, ...sides, ...body].join('\n')}\n`, hunks, truncated: false };
}

/** `current` with hunk `index` of the `before` → `after` diff undone; undefined when it no longer applies. */
export function withHunkUndone(before: string, after: string, current: string, index: number): string | undefined {
  const patch = hunksOf(before, after);
  const hunk = patch.hunks[index];
  if (hunk === undefined) return undefined;
  const undone = applyPatch(current, reversePatch({ ...patch, hunks: [hunk] }));
  return undone === false ? undefined : undone;
}

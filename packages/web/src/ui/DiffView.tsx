import type { FileChange } from '@outrigger/host-api';
import { type ReactNode, useMemo } from 'react';
import { Decoration, Diff, Hunk, parseDiff } from 'react-diff-view';
import 'react-diff-view/style/index.css';
import { unifiedDiffOf } from '../data/fileDiff.ts';

export type DiffViewProps =
  /** A tool call's file change (an Edit, a Write). */
  | { change: FileChange; diff?: undefined }
  | {
      /** Unified diff text of one file, its hunks in the host's order. */
      diff: string;
      change?: undefined;
      /** A line above hunk `index` (its `@@` header, its actions). */
      hunkHeader?: (index: number) => ReactNode;
      /** Hunks shown as undone (dimmed, struck through): reverted since this diff was taken. */
      undoneHunks?: ReadonlySet<number>;
    };

/** A unified diff with line numbers; a new file shows its content as added lines. */
export function DiffView(props: DiffViewProps) {
  const text = props.change === undefined ? props.diff : null;
  const change = props.change;
  const files = useMemo(() => parseDiff(change === undefined ? (text ?? '') : unifiedDiffOf(change)), [change, text]);
  const hunkHeader = props.change === undefined ? props.hunkHeader : undefined;
  const undone = props.change === undefined ? props.undoneHunks : undefined;
  return (
    <div className="diff-wrap">
      {files.map((file) => (
        <Diff
          key={`${file.oldRevision}-${file.newRevision}-${file.newPath}`}
          viewType="unified"
          diffType={file.type}
          hunks={file.hunks}
        >
          {(hunks) =>
            hunks.flatMap((hunk, index) => {
              const key = `${hunk.oldStart}:${hunk.newStart}:${hunk.content}`;
              const undoneHere = undone?.has(index) === true;
              const body = <Hunk key={`h${key}`} hunk={hunk} />;
              if (hunkHeader === undefined) return [body];
              return [
                <Decoration key={`d${key}`} className={undoneHere ? 'hunk-header undone' : 'hunk-header'}>
                  {hunkHeader(index)}
                </Decoration>,
                body,
              ];
            })
          }
        </Diff>
      ))}
    </div>
  );
}

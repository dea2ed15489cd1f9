import type { FileChange } from '@outrigger/host-api';
import { useMemo } from 'react';
import { Diff, Hunk, parseDiff } from 'react-diff-view';
import 'react-diff-view/style/index.css';
import { unifiedDiffOf } from '../data/fileDiff.ts';

/** A file change as a unified diff with line numbers; a new file shows its content as added lines. */
export function DiffView({ change }: { change: FileChange }) {
  const files = useMemo(() => parseDiff(unifiedDiffOf(change)), [change]);
  return (
    <div className="diff-wrap">
      {files.map((file) => (
        <Diff
          key={`${file.oldRevision}-${file.newRevision}-${file.newPath}`}
          viewType="unified"
          diffType={file.type}
          hunks={file.hunks}
        >
          {(hunks) => hunks.map((hunk) => <Hunk key={hunk.content} hunk={hunk} />)}
        </Diff>
      ))}
    </div>
  );
}

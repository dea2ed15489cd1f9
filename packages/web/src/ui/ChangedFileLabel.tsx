import type { ChangedFile } from '@outrigger/host-api';
import { displayPath, modeNote, rewindWord } from '../data/changedFiles.ts';

/**
 * One changed file on one line: what happened to it, its path, binary or mode notes, lines added and
 * removed. `asRewind`: the file is in a rewind's plan, and its status says what the rewind does to it.
 */
export function ChangedFileLabel({ file, asRewind = false }: { file: ChangedFile; asRewind?: boolean }) {
  const mode = modeNote(file);
  const path = displayPath(file);
  return (
    <span className="changed-file">
      <span className="change-status" data-status={file.status}>
        {asRewind ? rewindWord(file.status) : file.status}
      </span>
      {/* Cut at its start when narrow (the file's own name stays): the path runs left to right inside. */}
      <span className="changed-path" title={path}>
        <bdi dir="ltr">{path}</bdi>
      </span>
      {file.binary && <span className="tag">binary</span>}
      {mode !== null && <span className="tag">{mode}</span>}
      {!file.binary && (file.additions > 0 || file.deletions > 0) && (
        <LineCounts additions={file.additions} deletions={file.deletions} />
      )}
    </span>
  );
}

/** `+4 −1`, read out as words. */
export function LineCounts({ additions, deletions }: { additions: number; deletions: number }) {
  return (
    <span className="diff-stats small">
      <span className="add" aria-hidden="true">
        +{additions}
      </span>{' '}
      <span className="del" aria-hidden="true">
        −{deletions}
      </span>
      <span className="sr-only">
        {' '}
        ({additions} lines added, {deletions} removed)
      </span>
    </span>
  );
}

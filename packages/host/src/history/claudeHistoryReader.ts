import type { HistoryChangedEvent, HistoryNote, HistorySession, MessageView } from '@outrigger/host-api';

/** A transcript in the rows of a live session, with what it could not show. */
export interface TranscriptContent {
  readonly rows: readonly MessageView[];
  readonly notes: readonly HistoryNote[];
}

/**
 * What the rest of the host reads of Claude Code's history (the sessions use it to continue one, and to see a
 * transcript that grew outside Outrigger). `history/` implements it over the index and the SDK.
 */
export interface ClaudeHistoryReader {
  /** One session, its file looked at again first; undefined when no transcript has that id. */
  session(claudeSessionId: string): Promise<HistorySession | undefined>;
  /** The whole transcript as rows (cached while the file is unchanged); undefined when there is none. */
  content(claudeSessionId: string): Promise<TranscriptContent | undefined>;
  /** Called with the transcripts that were added, grew or went; returns the unsubscribe. */
  onChange(listener: (event: HistoryChangedEvent) => void): () => void;
}

import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import type { ClaudeHistorySdk } from '@outrigger/claude-sdk-sidecar';
import type { TranscriptContent } from './claudeHistoryReader.ts';
import {
  chainEndingAt,
  fromSdk,
  type SdkMessage,
  type TranscriptMessage,
  transcriptMessages,
} from './transcriptMessages.ts';
import { installedClaudeCodeVersion, transcriptNotes } from './transcriptNotes.ts';
import { TranscriptRowBuilder } from './transcriptRows.ts';
import { scanTranscript, type TranscriptScan } from './transcriptScan.ts';

/*
 * One Claude Code session's transcript → the rows a live Outrigger session shows, and notes on what it could
 * not show. The SDK reads the conversation (in its worker thread, off this event loop) while the raw scan
 * streams the same file for what the SDK leaves out; the subagents' transcripts are read the same way. Bad
 * input never fails the read: what is readable becomes rows, the rest a note.
 */

export interface TranscriptLocation {
  readonly claudeSessionId: string;
  /** The directory Claude Code ran in (the SDK finds the transcript by it). */
  readonly cwd: string;
  /** The transcript file, `<config>/projects/<folder>/<id>.jsonl`. */
  readonly path: string;
}

/** Messages turned into rows between two turns of the event loop (about 2 ms of work). */
const MESSAGES_PER_SLICE = 500;

/** Subagent transcripts read at once. */
const SUBAGENT_READS = 4;

/** The transcript as rows. Rejects only when the file itself cannot be read (`ENOENT` when it is gone). */
export async function readTranscriptContent(
  sdk: ClaudeHistorySdk,
  entry: TranscriptLocation,
): Promise<TranscriptContent> {
  const file = await stat(entry.path);
  const options = { dir: entry.cwd };
  const [scan, sdkMessages, installedVersion, subagents] = await Promise.all([
    scanTranscript(entry.path),
    sdk
      .getSessionMessages(entry.claudeSessionId, { ...options, includeSystemMessages: true })
      .then((messages) => messages as readonly SdkMessage[])
      .catch(() => undefined),
    installedClaudeCodeVersion(),
    readSubagents(sdk, entry),
  ]);
  // The SDK found nothing it could read where the scan did (a damaged chain): the scan's own chain then.
  const messages =
    sdkMessages === undefined || (sdkMessages.length === 0 && scan.lastConversationUuid !== undefined)
      ? chainEndingAt(scan, scan.lastConversationUuid)
      : transcriptMessages(sdkMessages, scan);

  const builder = new TranscriptRowBuilder(entry.claudeSessionId, file.mtimeMs);
  // In slices, so that a long transcript does not hold the event loop while its rows are built.
  for (let start = 0; start < messages.length; start += MESSAGES_PER_SLICE) {
    if (start > 0) await setImmediate();
    builder.addConversation(messages.slice(start, start + MESSAGES_PER_SLICE));
  }
  // A subagent's Agent call may be in another subagent's transcript: place those whose call is known, again.
  const read = new Set(subagents.read.map((agent) => agent.agentId));
  let pending = subagents.read;
  let launched = builder.launchedAgents();
  for (let placed = true; placed && pending.length > 0; ) {
    placed = false;
    const rest: SubagentTranscript[] = [];
    for (const agent of pending) {
      const parent =
        agent.messages.find((message) => message.parentToolUseId !== null)?.parentToolUseId ??
        launched.get(agent.agentId);
      if (parent === undefined) rest.push(agent);
      else {
        builder.addSubagent(agent.messages, parent);
        placed = true;
      }
    }
    pending = rest;
    launched = builder.launchedAgents();
  }
  // Unplaced (no Agent call names it), listed but unreadable, or named by an Agent call but not there.
  let unreadableSubagents = subagents.unreadable + pending.length;
  for (const agentId of launched.keys()) {
    if (!read.has(agentId) && !subagents.failed.has(agentId)) unreadableSubagents += 1;
  }
  const built = builder.finish();

  const scans = [scan, ...subagents.read.map((agent) => agent.scan)];
  return {
    rows: built.rows,
    notes: transcriptNotes({
      corruptLines: sum(scans, (each) => each.corruptLines),
      lastLineCorrupt: scan.lastLineCorrupt,
      unknownEntries: sum(scans, (each) => each.unknownEntries) + built.unknownBlocks,
      versions: mergedVersions(scans),
      installedVersion,
      outputsCut: built.outputsCut,
      unreadableSubagents,
      rows: built.rows.length,
    }),
  };
}

interface SubagentTranscript {
  readonly agentId: string;
  readonly messages: TranscriptMessage[];
  readonly scan: TranscriptScan;
}

interface Subagents {
  readonly read: SubagentTranscript[];
  /** Agents listed whose transcript could not be read. */
  readonly failed: ReadonlySet<string>;
  readonly unreadable: number;
}

/** Claude Code keeps a session's subagent transcripts in `<id>/subagents/agent-<agentId>.jsonl` beside it. */
function subagentPath(entry: TranscriptLocation, agentId: string): string {
  return join(dirname(entry.path), entry.claudeSessionId, 'subagents', `agent-${agentId}.jsonl`);
}

async function readSubagents(sdk: ClaudeHistorySdk, entry: TranscriptLocation): Promise<Subagents> {
  const options = { dir: entry.cwd };
  const agentIds = await sdk.listSubagents(entry.claudeSessionId, options).catch(() => [] as string[]);
  const read: SubagentTranscript[] = [];
  const failed = new Set<string>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < agentIds.length) {
      const agentId = agentIds[next++]!;
      const [messages, scan] = await Promise.all([
        sdk.getSubagentMessages(entry.claudeSessionId, agentId, options).catch(() => undefined),
        scanTranscript(subagentPath(entry, agentId)).catch(() => undefined),
      ]);
      // Messages the SDK could not read although the file holds some: unreadable, not empty.
      if (
        messages === undefined ||
        scan === undefined ||
        (messages.length === 0 && (scan.lastConversationUuid !== undefined || scan.corruptLines > 0))
      ) {
        failed.add(agentId);
        continue;
      }
      const normalized = (messages as readonly SdkMessage[]).flatMap(
        (message) => fromSdk(message, scan.entries.get(message.uuid)) ?? [],
      );
      read.push({ agentId, messages: normalized, scan });
    }
  };
  await Promise.all(Array.from({ length: Math.min(SUBAGENT_READS, agentIds.length) }, worker));
  // Keep the listing's order, whatever order the reads finished in.
  read.sort((a, b) => agentIds.indexOf(a.agentId) - agentIds.indexOf(b.agentId));
  return { read, failed, unreadable: failed.size };
}

function sum<T>(items: readonly T[], of: (item: T) => number): number {
  return items.reduce((total, item) => total + of(item), 0);
}

function mergedVersions(scans: readonly TranscriptScan[]): Map<string, number> {
  const versions = new Map<string, number>();
  for (const scan of scans) {
    for (const [version, count] of scan.versions) versions.set(version, (versions.get(version) ?? 0) + count);
  }
  return versions;
}

import { type RawEntry, rawBody, type TranscriptScan } from './transcriptScan.ts';

/*
 * The messages of a transcript, in the order they are shown. The SDK's `getSessionMessages` gives the
 * conversation as it stands (the branch that leads to the newest message, prompts queued mid-turn put back
 * where they were sent) but only from the last compaction on: it follows `parentUuid`, and a compaction
 * boundary starts a new chain (`parentUuid: null`, the old one named by `logicalParentUuid`); an entry of a
 * kind it does not know breaks the chain too. What came before is read from the raw scan, by walking those
 * same links back; the SDK's messages are completed with
 * what it strips (`toolUseResult`, a system entry's kind) from the raw entry of the same uuid.
 */

type Json = Record<string, unknown>;

export interface TranscriptMessage {
  readonly type: 'user' | 'assistant' | 'system';
  readonly uuid: string;
  /** The Anthropic message (`{role, content}`); undefined for system entries. */
  readonly message: Json | undefined;
  /** Set on a subagent's messages: the Agent tool call it runs under. */
  readonly parentToolUseId: string | null;
  readonly timestamp: string | undefined;
  /** A prompt sent while a turn ran, which Claude Code folded into that turn. */
  readonly queued: boolean;
  /** The summary a compaction left (the model's context after it; the compaction notice stands for it). */
  readonly compactSummary: boolean;
  readonly meta: boolean;
  /** The entry as Claude Code wrote it, when the raw scan saw it. */
  readonly raw: RawEntry | undefined;
}

/** The fields the SDK's `SessionMessage` carries at runtime (its type lists fewer). */
export interface SdkMessage {
  readonly type: string;
  readonly uuid: string;
  readonly message?: unknown;
  readonly parent_tool_use_id?: string | null;
  readonly timestamp?: string;
  readonly isQueuedCommand?: boolean;
  readonly isCompactSummary?: boolean;
  readonly is_meta?: boolean;
}

const record = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

export function fromSdk(message: SdkMessage, raw: RawEntry | undefined): TranscriptMessage | undefined {
  if (message.type !== 'user' && message.type !== 'assistant' && message.type !== 'system') return undefined;
  return {
    type: message.type,
    uuid: message.uuid,
    message: record(message.message),
    parentToolUseId: message.parent_tool_use_id ?? null,
    timestamp: message.timestamp ?? str(raw?.timestamp),
    queued: message.isQueuedCommand === true,
    compactSummary: message.isCompactSummary === true || raw?.isCompactSummary === true,
    meta: message.is_meta === true && message.isCompactSummary !== true,
    raw,
  };
}

function fromRaw(entry: RawEntry): TranscriptMessage | undefined {
  if (entry.type === 'attachment') {
    const attachment = record(entry.attachment);
    const prompt = str(attachment?.prompt);
    if (attachment?.type !== 'queued_command' || prompt === undefined) return undefined;
    return {
      type: 'user',
      uuid: str(attachment.source_uuid) ?? entry.uuid,
      message: { role: 'user', content: prompt },
      parentToolUseId: null,
      timestamp: str(entry.timestamp),
      queued: true,
      compactSummary: false,
      meta: false,
      raw: entry,
    };
  }
  if (entry.type !== 'user' && entry.type !== 'assistant' && entry.type !== 'system') return undefined;
  if (entry.isSidechain === true) return undefined;
  return {
    type: entry.type,
    uuid: entry.uuid,
    message: record(rawBody(entry)?.message),
    parentToolUseId: null,
    timestamp: str(entry.timestamp),
    queued: false,
    compactSummary: entry.isCompactSummary === true,
    meta: entry.isMeta === true || entry.isVisibleInTranscriptOnly === true,
    raw: entry,
  };
}

const isCompactBoundary = (message: TranscriptMessage): boolean =>
  message.type === 'system' && message.raw?.subtype === 'compact_boundary';

/**
 * The chain that ends at `leafUuid` (with it when `inclusive`), oldest first: through `parentUuid`, across
 * compaction boundaries (each followed back through its `logicalParentUuid`), and past a link that is not
 * in the file (a damaged line) to the entry written just before the one that named it. Used for what
 * precedes the SDK's first message, and for the whole transcript when the SDK could not read it.
 */
export function chainEndingAt(
  scan: TranscriptScan,
  leafUuid: string | undefined,
  inclusive = true,
): TranscriptMessage[] {
  const chain: TranscriptMessage[] = [];
  const seen = new Set<string>();
  let child: string | undefined;
  let cursor = leafUuid;
  if (!inclusive && leafUuid !== undefined) {
    child = leafUuid;
    cursor = linkOf(scan.entries.get(leafUuid));
  }
  while (cursor !== undefined && !seen.has(cursor)) {
    seen.add(cursor);
    const entry = scan.entries.get(cursor);
    if (entry === undefined) {
      cursor = child === undefined ? undefined : scan.precedingUuid(child);
      child = undefined;
      continue;
    }
    const message = fromRaw(entry);
    if (message !== undefined) chain.push(message);
    child = cursor;
    cursor = linkOf(entry);
  }
  return chain.reverse();
}

function linkOf(entry: RawEntry | undefined): string | undefined {
  if (entry === undefined) return undefined;
  return str(entry.parentUuid) ?? (entry.subtype === 'compact_boundary' ? str(entry.logicalParentUuid) : undefined);
}

/**
 * The SDK's messages (the conversation since the last compaction), preceded by what came before that
 * compaction, each message once (a compaction keeps some messages, which would otherwise show twice), a
 * `/compact` command before the boundary it caused (as the live session shows it: the prompt, then the notice).
 */
export function transcriptMessages(sdkMessages: readonly SdkMessage[], scan: TranscriptScan): TranscriptMessage[] {
  const current = sdkMessages.flatMap((message) => fromSdk(message, scan.entries.get(message.uuid)) ?? []);
  // The SDK's chain starts after a compaction boundary, or where a damaged line or an unknown link broke it.
  const first = current[0];
  const earlier = first?.raw === undefined ? [] : chainEndingAt(scan, first.uuid, false);
  const seen = new Set<string>();
  const messages = [...earlier, ...current].filter((message) => !seen.has(message.uuid) && seen.add(message.uuid));
  return commandsBeforeTheirBoundary(messages);
}

const compactCommand = /^\s*<command-name>\/compact<\/command-name>/;

function isCompactCommand(message: TranscriptMessage): boolean {
  const content = message.message?.content;
  return message.type === 'user' && typeof content === 'string' && compactCommand.test(content);
}

/**
 * Claude Code writes the boundary of a `/compact` (and the summary) before the command's own entry; the live
 * session shows the command first. A boundary is followed by its summary and meta entries, then the command.
 */
function commandsBeforeTheirBoundary(messages: TranscriptMessage[]): TranscriptMessage[] {
  const ordered = [...messages];
  for (let i = 0; i < ordered.length; i += 1) {
    if (!isCompactBoundary(ordered[i]!)) continue;
    let j = i + 1;
    while (j < ordered.length && (ordered[j]!.compactSummary || ordered[j]!.meta)) j += 1;
    const command = ordered[j];
    if (command === undefined || !isCompactCommand(command)) continue;
    ordered.splice(j, 1);
    ordered.splice(i, 0, command);
    i += 1;
  }
  return ordered;
}

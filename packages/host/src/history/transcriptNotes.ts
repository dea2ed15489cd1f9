import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type HistoryNote, hostLimits } from '@outrigger/host-api';

/*
 * What a transcript could not show, in words a person understands (`historyNoteKinds`). The SDK reports none
 * of it: the counts come from the raw scan and from the rows.
 */

export interface TranscriptFindings {
  readonly corruptLines: number;
  readonly lastLineCorrupt: boolean;
  readonly unknownEntries: number;
  /** How many entries each Claude Code version wrote (all transcripts read: the session's and its subagents'). */
  readonly versions: ReadonlyMap<string, number>;
  /** The Claude Code version Outrigger runs; undefined when it could not be found (no comparison then). */
  readonly installedVersion: string | undefined;
  readonly outputsCut: number;
  readonly unreadableSubagents: number;
  readonly rows: number;
}

const plural = (count: number, one: string, many: string): string => `${count} ${count === 1 ? one : many}`;

export function transcriptNotes(findings: TranscriptFindings): HistoryNote[] {
  const notes: HistoryNote[] = [];
  const { corruptLines } = findings;
  if (corruptLines > 0) {
    const message =
      corruptLines === 1 && findings.lastLineCorrupt
        ? 'The last line of this transcript is incomplete (Claude Code may still be writing it, or a write was cut off), so it was skipped.'
        : `${plural(corruptLines, 'line of this transcript is', 'lines of this transcript are')} damaged (not readable as JSON) and ${corruptLines === 1 ? 'was' : 'were'} skipped.`;
    notes.push({ kind: 'corrupt_lines', message, count: corruptLines });
  }
  if (findings.unknownEntries > 0) {
    notes.push({
      kind: 'unknown_entries',
      message: `${plural(findings.unknownEntries, 'entry', 'entries')} of a kind this version of Outrigger does not know ${findings.unknownEntries === 1 ? 'is' : 'are'} not shown.`,
      count: findings.unknownEntries,
    });
  }
  const newer = newerVersions(findings.versions, findings.installedVersion);
  if (newer.count > 0) {
    notes.push({
      kind: 'newer_version',
      message: `Part of this session was written by Claude Code ${newer.newest}, newer than the ${findings.installedVersion} Outrigger runs: some of it may not show.`,
      count: newer.count,
    });
  }
  if (findings.outputsCut > 0) {
    notes.push({
      kind: 'outputs_cut',
      message: `${plural(findings.outputsCut, 'tool output is', 'tool outputs are')} longer than ${hostLimits.toolResultPreviewChars.toLocaleString('en-US')} characters and ${findings.outputsCut === 1 ? 'is' : 'are'} shown cut.`,
      count: findings.outputsCut,
    });
  }
  if (findings.unreadableSubagents > 0) {
    notes.push({
      kind: 'subagent_unreadable',
      message: `The ${findings.unreadableSubagents === 1 ? 'transcript of 1 subagent' : `transcripts of ${findings.unreadableSubagents} subagents`} could not be read, so the tool calls ${findings.unreadableSubagents === 1 ? 'it' : 'they'} made are not shown under ${findings.unreadableSubagents === 1 ? 'its' : 'their'} Agent call.`,
      count: findings.unreadableSubagents,
    });
  }
  if (findings.rows === 0) {
    notes.push({ kind: 'empty', message: 'This transcript holds no messages that can be shown.', count: null });
  }
  return notes;
}

/** `2.1.332` → [2, 1, 332]; undefined for anything else. */
function parseVersion(version: string): number[] | undefined {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  return match === null ? undefined : [Number(match[1]), Number(match[2]), Number(match[3])];
}

function compareVersions(a: string, b: string): number | undefined {
  const left = parseVersion(a);
  const right = parseVersion(b);
  if (left === undefined || right === undefined) return undefined;
  for (let i = 0; i < 3; i += 1) if (left[i] !== right[i]) return left[i]! - right[i]!;
  return 0;
}

function newerVersions(
  versions: ReadonlyMap<string, number>,
  installed: string | undefined,
): { count: number; newest: string | undefined } {
  let count = 0;
  let newest: string | undefined;
  if (installed === undefined) return { count, newest };
  for (const [version, entries] of versions) {
    if ((compareVersions(version, installed) ?? 0) <= 0) continue;
    count += entries;
    if (newest === undefined || (compareVersions(version, newest) ?? 0) > 0) newest = version;
  }
  return { count, newest };
}

/** The SDK the sidecar loads (its dependency), else the one this module resolves (a bundled host). */
function sdkEntry(): string {
  try {
    const sidecar = fileURLToPath(import.meta.resolve('@outrigger/claude-sdk-sidecar'));
    return createRequire(sidecar).resolve('@anthropic-ai/claude-agent-sdk');
  } catch {
    return fileURLToPath(import.meta.resolve('@anthropic-ai/claude-agent-sdk'));
  }
}

let installed: Promise<string | undefined> | undefined;

/**
 * The Claude Code version of the installed Agent SDK package: its `package.json` records it as
 * `claudeCodeVersion` (its `manifest.json` as `version`, the native binary's). Read once.
 */
export function installedClaudeCodeVersion(): Promise<string | undefined> {
  installed ??= (async () => {
    try {
      const folder = dirname(sdkEntry());
      const manifest = JSON.parse(await readFile(join(folder, 'package.json'), 'utf8')) as {
        claudeCodeVersion?: unknown;
      };
      if (typeof manifest.claudeCodeVersion === 'string') return manifest.claudeCodeVersion;
      const binary = JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8')) as { version?: unknown };
      return typeof binary.version === 'string' ? binary.version : undefined;
    } catch {
      return undefined;
    }
  })();
  return installed;
}

import { join } from 'node:path';
import { type ClaudeHistorySdk, projectKey } from '@outrigger/claude-sdk-sidecar';
import { projectFolders, projectsDirOf, statTranscript } from '../history/transcriptFiles.ts';

/*
 * The Claude Code transcripts the sessions read themselves (continuing one, and seeing one that grew outside
 * Outrigger): their messages through the SDK's own `getSessionMessages` (in a worker thread, under the host's
 * config dir), a copy through `forkSession`, and the file's size and time for the cheap check before a turn.
 */

/** A user or assistant message of the conversation, as the SDK reads it (attachments and bookkeeping hidden). */
export interface TranscriptMessage {
  readonly type: 'user' | 'assistant';
  readonly uuid: string;
  /** The Anthropic message: `{role, content}`. */
  readonly message: unknown;
}

/** What a transcript's file looked like: a change in either means it was written. */
export interface TranscriptStat {
  readonly size: number;
  readonly mtimeMs: number;
}

export interface ClaudeTranscripts {
  /** The conversation's messages, oldest first; empty when there is no such transcript. */
  messages(claudeSessionId: string, cwd: string): Promise<TranscriptMessage[]>;
  /** A copy under a new id, in the same project folder: the new id. */
  fork(claudeSessionId: string, cwd: string, title?: string): Promise<string>;
  /** The file's size and time; undefined when there is none. */
  stat(claudeSessionId: string, cwd: string): Promise<TranscriptStat | undefined>;
}

/** Claude Code cuts a longer folder name and adds a hash of its own (`projectKey` follows it, but Claude Code is the judge). */
const PROJECT_FOLDER_MAX = 200;

/**
 * The transcripts under `configDir`, read with the SDK in its worker thread (the host's `claudeHistorySdk`); their
 * files are found and stat'ed as the history's index does (`history/transcriptFiles.ts`).
 */
export function sdkTranscripts(configDir: string, sdk: ClaudeHistorySdk): ClaudeTranscripts {
  const projectsDir = projectsDirOf(configDir);
  /** Where each session's file was found, for the paths whose folder name Claude Code hashed. */
  const found = new Map<string, string>();
  const pathOf = async (claudeSessionId: string, cwd: string): Promise<string | undefined> => {
    const folder = projectKey(cwd);
    const direct = join(projectsDir, folder, `${claudeSessionId}.jsonl`);
    if (folder.length <= PROJECT_FOLDER_MAX) return direct;
    const known = found.get(claudeSessionId);
    if (known !== undefined) return known;
    if ((await statTranscript(direct)) !== undefined) {
      found.set(claudeSessionId, direct);
      return direct;
    }
    for (const candidate of await projectFolders(projectsDir)) {
      const file = await statTranscript(join(candidate, `${claudeSessionId}.jsonl`));
      if (file !== undefined) {
        found.set(claudeSessionId, file.path);
        return file.path;
      }
    }
    return undefined;
  };
  return {
    async messages(claudeSessionId, cwd) {
      const messages = await sdk.getSessionMessages(claudeSessionId, { dir: cwd });
      return messages.flatMap((message) =>
        message.type === 'user' || message.type === 'assistant'
          ? [{ type: message.type, uuid: message.uuid, message: message.message }]
          : [],
      );
    },
    async fork(claudeSessionId, cwd, title) {
      const forked = await sdk.forkSession(claudeSessionId, { dir: cwd, ...(title === undefined ? {} : { title }) });
      return forked.sessionId;
    },
    async stat(claudeSessionId, cwd) {
      const path = await pathOf(claudeSessionId, cwd);
      const file = path === undefined ? undefined : await statTranscript(path);
      return file === undefined ? undefined : { size: file.size, mtimeMs: file.mtimeMs };
    },
  };
}

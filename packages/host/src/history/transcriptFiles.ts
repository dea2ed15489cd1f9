import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { claudeSessionIdSchema } from '@outrigger/host-api';

/*
 * Where Claude Code keeps its transcripts: `<config>/projects/<folder>/<session id>.jsonl`, one folder per working
 * directory. Only those files are transcripts of sessions: a session's own folder beside its file (`<id>/subagents`,
 * tool results) holds its subagents' transcripts, which belong to it, and any other name is not Claude Code's.
 */

/** A transcript file as the file system has it now. */
export interface TranscriptFile {
  readonly path: string;
  /** The project folder (its name is the working directory with every non-alphanumeric character as `-`). */
  readonly folder: string;
  readonly claudeSessionId: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/** Files stat'ed at once: enough to keep the disk busy, few enough not to run out of descriptors. */
const STATS_AT_ONCE = 64;

export function projectsDirOf(configDir: string): string {
  return join(configDir, 'projects');
}

/** The project folders under `projects` (none when it does not exist). */
export async function projectFolders(projectsDir: string): Promise<string[]> {
  const entries = await readdir(projectsDir, { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isDirectory()).map((entry) => join(projectsDir, entry.name));
}

/** The transcripts of one project folder, each stat'ed (a file that went meanwhile is left out). */
export async function transcriptFilesIn(folder: string): Promise<TranscriptFile[]> {
  const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
  const candidates = entries.filter((entry) => entry.isFile() && claudeSessionIdOfFile(entry.name) !== undefined);
  const files: TranscriptFile[] = [];
  for (let start = 0; start < candidates.length; start += STATS_AT_ONCE) {
    const batch = candidates.slice(start, start + STATS_AT_ONCE);
    const stated = await Promise.all(batch.map((entry) => statTranscript(join(folder, entry.name))));
    for (const file of stated) if (file !== undefined) files.push(file);
  }
  return files;
}

/** One transcript file now; undefined when it is gone or is no regular file. */
export async function statTranscript(path: string): Promise<TranscriptFile | undefined> {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const claudeSessionId = claudeSessionIdOfFile(name);
  if (claudeSessionId === undefined) return undefined;
  const info = await stat(path).catch(() => undefined);
  if (info === undefined || !info.isFile()) return undefined;
  return {
    path,
    folder: path.slice(0, path.lastIndexOf('/')),
    claudeSessionId,
    size: info.size,
    mtimeMs: Math.floor(info.mtimeMs),
  };
}

/** `<uuid>.jsonl` → the uuid (as the file names it, which the SDK looks for); anything else → undefined. */
function claudeSessionIdOfFile(name: string): string | undefined {
  if (!name.endsWith('.jsonl')) return undefined;
  const id = name.slice(0, -'.jsonl'.length);
  return claudeSessionIdSchema.safeParse(id).success ? id : undefined;
}

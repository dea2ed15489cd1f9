import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { projectKey } from '@outrigger/claude-sdk-sidecar';

/**
 * Claude Code transcripts written the way Claude Code 2.1 writes them (the entry kinds and fields of a real
 * run against mock-anthropic), for the history's tests and benchmarks: a large history is generated, not stored.
 */
export interface GeneratedTranscript {
  readonly sessionId: string;
  readonly cwd: string;
  readonly path: string;
  readonly bytes: number;
  /** User and assistant entries (what `getSessionMessages` returns without system messages). */
  readonly messages: number;
}

/** The folder Claude Code keeps a directory's transcripts in (its own rule, as the sidecar knows it). */
export const projectFolderName = projectKey;

export interface TranscriptShape {
  readonly cwd: string;
  readonly sessionId?: string;
  /** User + assistant entries, at least 2. Every fourth exchange is a tool call with its result. */
  readonly messages: number;
  /** Padding per assistant text, to reach a file size. */
  readonly textBytes?: number;
  readonly gitBranch?: string;
  /** Milliseconds since the epoch of the first entry; one second per entry after it. */
  readonly startedAt?: number;
  readonly firstPrompt?: string;
}

function transcriptLines(shape: TranscriptShape): { sessionId: string; lines: string[]; messages: number } {
  const sessionId = shape.sessionId ?? randomUUID();
  const base = {
    userType: 'external',
    entrypoint: 'cli',
    cwd: shape.cwd,
    sessionId,
    version: '2.1.332',
    gitBranch: shape.gitBranch ?? 'main',
  };
  const padding = 'x'.repeat(shape.textBytes ?? 200);
  const lines: string[] = [
    JSON.stringify({
      type: 'queue-operation',
      operation: 'enqueue',
      timestamp: iso(shape.startedAt ?? Date.UTC(2026, 10, 1)),
      sessionId,
    }),
  ];
  let parentUuid: string | null = null;
  let at = shape.startedAt ?? Date.UTC(2026, 10, 1);
  let messages = 0;
  const push = (entry: Record<string, unknown>) => {
    const uuid = randomUUID();
    lines.push(JSON.stringify({ parentUuid, isSidechain: false, ...entry, uuid, timestamp: iso(at), ...base }));
    parentUuid = uuid;
    at += 1000;
    messages += 1;
  };
  for (let exchange = 0; messages + 2 <= shape.messages; exchange += 1) {
    const prompt =
      exchange === 0 ? (shape.firstPrompt ?? 'Look at the build and fix what fails') : `Next step ${exchange}`;
    if (exchange % 4 === 3 && messages + 4 <= shape.messages) {
      const toolUseId = `toolu_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
      push({ type: 'user', message: { role: 'user', content: prompt } });
      push({
        type: 'assistant',
        message: assistantMessage([{ type: 'tool_use', id: toolUseId, name: 'Bash', input: { command: 'npm test' } }]),
      });
      push({
        type: 'user',
        message: { role: 'user', content: [{ tool_use_id: toolUseId, type: 'tool_result', content: `ok ${padding}` }] },
        toolUseResult: { stdout: `ok ${padding}`, stderr: '', interrupted: false },
      });
      push({ type: 'assistant', message: assistantMessage([{ type: 'text', text: `The tests pass. ${padding}` }]) });
    } else {
      push({ type: 'user', message: { role: 'user', content: prompt } });
      push({ type: 'assistant', message: assistantMessage([{ type: 'text', text: `Done: ${prompt}. ${padding}` }]) });
    }
    lines.push(JSON.stringify({ type: 'last-prompt', lastPrompt: prompt, leafUuid: parentUuid, sessionId }));
  }
  return { sessionId, lines, messages };
}

export async function writeTranscript(configDir: string, shape: TranscriptShape): Promise<GeneratedTranscript> {
  const { sessionId, lines, messages } = transcriptLines(shape);
  const folder = join(configDir, 'projects', projectFolderName(shape.cwd));
  await mkdir(folder, { recursive: true });
  const path = join(folder, `${sessionId}.jsonl`);
  const text = `${lines.join('\n')}\n`;
  await writeFile(path, text);
  return { sessionId, cwd: shape.cwd, path, bytes: Buffer.byteLength(text), messages };
}

export interface HistoryShape {
  readonly projects: number;
  readonly sessionsPerProject: number;
  readonly messagesPerSession: number;
  readonly textBytes: number;
  /** The projects' directories are `<root>/project-<n>`. */
  readonly projectsRoot: string;
}

/** A whole history: `projects × sessionsPerProject` transcripts, their last activity spread over a month. */
export async function writeHistory(configDir: string, shape: HistoryShape): Promise<GeneratedTranscript[]> {
  const written: GeneratedTranscript[] = [];
  for (let project = 0; project < shape.projects; project += 1) {
    const cwd = join(shape.projectsRoot, `project-${project}`);
    const batch = Array.from({ length: shape.sessionsPerProject }, (_, index) =>
      writeTranscript(configDir, {
        cwd,
        messages: shape.messagesPerSession,
        textBytes: shape.textBytes,
        startedAt: Date.UTC(2026, 10, 1) + (project * shape.sessionsPerProject + index) * 60_000,
        firstPrompt: `Task ${index} in project ${project}`,
      }),
    );
    written.push(...(await Promise.all(batch)));
  }
  return written;
}

function assistantMessage(content: unknown[]): Record<string, unknown> {
  return {
    id: `msg_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-opus-5-5',
    content,
    stop_reason: content.some((block) => (block as { type: string }).type === 'tool_use') ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 1200, output_tokens: 80, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  };
}

function iso(at: number): string {
  return new Date(at).toISOString();
}

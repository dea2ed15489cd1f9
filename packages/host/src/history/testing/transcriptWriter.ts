import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { projectFolderName } from './generatedHistory.ts';

/*
 * Hand-written Claude Code 2.1 transcripts for the transcript reader's tests: entries with the fields and the
 * parent links Claude Code writes (the shapes seen in a real run against mock-anthropic), one call each, so a
 * test can add exactly the damage or the case it is about.
 */

type Json = Record<string, unknown>;

export class TranscriptWriter {
  readonly sessionId: string;
  readonly cwd: string;
  readonly lines: string[] = [];
  version = '2.1.332';
  #parent: string | null = null;
  #at: number;
  readonly #sidechain: Json;

  constructor(options: { cwd: string; sessionId?: string; agentId?: string; startedAt?: number }) {
    this.sessionId = options.sessionId ?? randomUUID();
    this.cwd = options.cwd;
    this.#at = options.startedAt ?? Date.UTC(2026, 10, 1);
    this.#sidechain =
      options.agentId === undefined ? { isSidechain: false } : { isSidechain: true, agentId: options.agentId };
  }

  /** One entry, linked to the previous one; returns its uuid. */
  entry(fields: Json): string {
    const uuid = typeof fields.uuid === 'string' ? fields.uuid : randomUUID();
    this.lines.push(
      JSON.stringify({
        parentUuid: this.#parent,
        ...this.#sidechain,
        ...fields,
        uuid,
        timestamp: new Date(this.#at).toISOString(),
        userType: 'external',
        entrypoint: 'cli',
        cwd: this.cwd,
        sessionId: this.sessionId,
        version: this.version,
      }),
    );
    this.#parent = uuid;
    this.#at += 1000;
    return uuid;
  }

  prompt(content: string | unknown[], fields: Json = {}): string {
    return this.entry({ type: 'user', message: { role: 'user', content }, ...fields });
  }

  assistant(content: unknown[], fields: Json = {}): string {
    return this.entry({
      type: 'assistant',
      message: {
        id: `msg_${randomUUID().slice(0, 8)}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-opus-5-5',
        content,
        stop_reason: 'end_turn',
        usage: { input_tokens: 10, output_tokens: 5 },
      },
      ...fields,
    });
  }

  text(text: string): string {
    return this.assistant([{ type: 'text', text }]);
  }

  /** A tool_use and its result; returns the tool_use id. */
  tool(
    name: string,
    input: Json,
    result: string | unknown[],
    options: { isError?: boolean; toolUseResult?: unknown } = {},
  ): string {
    const id = `toolu_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
    this.assistant([{ type: 'tool_use', id, name, input }]);
    this.result(id, result, options);
    return id;
  }

  call(name: string, input: Json): string {
    const id = `toolu_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
    this.assistant([{ type: 'tool_use', id, name, input }]);
    return id;
  }

  result(
    toolUseId: string,
    content: string | unknown[],
    options: { isError?: boolean; toolUseResult?: unknown } = {},
  ): string {
    const block = {
      tool_use_id: toolUseId,
      type: 'tool_result',
      content,
      ...(options.isError ? { is_error: true } : {}),
    };
    return this.entry({
      type: 'user',
      message: { role: 'user', content: [block] },
      ...(options.toolUseResult === undefined ? {} : { toolUseResult: options.toolUseResult }),
    });
  }

  /** A metadata line (no uuid, not linked). */
  meta(fields: Json): void {
    this.lines.push(JSON.stringify({ ...fields, sessionId: this.sessionId }));
  }

  /** A line as given (damage). */
  raw(line: string): void {
    this.lines.push(line);
  }

  /** Starts a new chain the way a compaction does: a boundary with no parent, naming the old chain's end. */
  compactBoundary(trigger: 'manual' | 'auto' = 'manual'): string {
    const logicalParentUuid = this.#parent;
    this.#parent = null;
    return this.entry({
      type: 'system',
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      isMeta: false,
      level: 'info',
      logicalParentUuid,
      compactMetadata: { trigger, preTokens: 1000 },
    });
  }

  get contents(): string {
    return `${this.lines.join('\n')}\n`;
  }

  /** Writes the transcript where Claude Code keeps it under `configDir`; returns its path. */
  async write(configDir: string): Promise<string> {
    const folder = join(configDir, 'projects', projectFolderName(this.cwd));
    await mkdir(folder, { recursive: true });
    const path = join(folder, `${this.sessionId}.jsonl`);
    await writeFile(path, this.contents);
    return path;
  }

  /** Writes this as the transcript of subagent `agentId` of session `sessionId`. */
  async writeSubagent(configDir: string, sessionId: string, agentId: string): Promise<string> {
    const folder = join(configDir, 'projects', projectFolderName(this.cwd), sessionId, 'subagents');
    await mkdir(folder, { recursive: true });
    const path = join(folder, `agent-${agentId}.jsonl`);
    await writeFile(path, this.contents);
    return path;
  }
}

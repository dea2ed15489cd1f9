import type { FileCompletion, HostClient, SessionCommands } from '@outrigger/host-api';
import type { ComposerTrigger } from './composerTrigger.ts';

export type SlashCommand = SessionCommands['commands'][number];

/** One row of the composer's completion list. */
export interface CompletionItem {
  /** What is inserted after the `/` or `@`. */
  readonly value: string;
  readonly label: string;
  readonly detail: string;
  readonly kind: 'command' | 'file' | 'directory';
}

export interface CompletionResult {
  readonly items: readonly CompletionItem[];
  /** More matched than are listed. */
  readonly truncated: boolean;
}

const COMMAND_TTL_MS = 15_000;
const COMMANDS_SHOWN = 50;

/** Commands whose name starts with the query first, then names holding it, then descriptions holding it. */
export function rankCommands(commands: readonly SlashCommand[], query: string): CompletionResult {
  const wanted = query.toLowerCase();
  const scored: { command: SlashCommand; score: number }[] = [];
  for (const command of commands) {
    const name = command.name.toLowerCase();
    const score = name.startsWith(wanted)
      ? 0
      : name.includes(wanted)
        ? 1
        : command.description.toLowerCase().includes(wanted)
          ? 2
          : -1;
    if (score !== -1) scored.push({ command, score });
  }
  scored.sort((a, b) => a.score - b.score || a.command.name.localeCompare(b.command.name));
  return {
    items: scored.slice(0, COMMANDS_SHOWN).map(({ command }) => ({
      value: command.name,
      label: `/${command.name}${command.input?.hint ? ` ${command.input.hint}` : ''}`,
      detail: command.description,
      kind: 'command',
    })),
    truncated: scored.length > COMMANDS_SHOWN,
  };
}

export function fileItems(completion: FileCompletion): CompletionResult {
  return {
    items: completion.entries.map((entry) => ({
      value: entry.path,
      label: entry.path,
      detail: entry.kind === 'directory' ? 'folder' : '',
      kind: entry.kind,
    })),
    truncated: completion.truncated,
  };
}

type Client = Pick<HostClient, 'call'>;

/**
 * Where the composer's completions come from: a session's slash commands (fetched when `/` is typed, kept for
 * a few seconds) and its files for `@` (asked of the host for each query; the host never leaves the directory).
 */
export class CompletionSource {
  readonly #client: Client;
  readonly #now: () => number;
  readonly #commands = new Map<string, { at: number; commands: Promise<readonly SlashCommand[]> }>();

  constructor(client: Client, now: () => number = Date.now) {
    this.#client = client;
    this.#now = now;
  }

  async complete(sessionId: string, trigger: ComposerTrigger): Promise<CompletionResult> {
    if (trigger.kind === 'command') return rankCommands(await this.#commandsOf(sessionId), trigger.query);
    const completion = await this.#client.call('completeFiles', {
      params: { id: sessionId },
      query: trigger.query === '' ? {} : { prefix: trigger.query },
    });
    return fileItems(completion);
  }

  #commandsOf(sessionId: string): Promise<readonly SlashCommand[]> {
    const cached = this.#commands.get(sessionId);
    if (cached !== undefined && this.#now() - cached.at < COMMAND_TTL_MS) return cached.commands;
    const commands = this.#client.call('listCommands', { params: { id: sessionId } }).then((answer) => answer.commands);
    commands.catch(() => this.#commands.delete(sessionId));
    this.#commands.set(sessionId, { at: this.#now(), commands });
    return commands;
  }
}

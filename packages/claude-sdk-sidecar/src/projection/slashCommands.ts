import type { SlashCommand } from '@outrigger/protocol';
import { asRecord, nonEmptyString, stringOrEmpty } from '../shared/sdkValues.ts';

/** Commands a host cannot run through the SDK, or that only make sense in the terminal UI. */
const HIDDEN_COMMANDS: ReadonlySet<string> = new Set([
  'clear',
  'cost',
  'keybindings-help',
  'login',
  'logout',
  'output-style:new',
  'release-notes',
  'todos',
]);

const MCP_SUFFIX = ' (MCP)';

/**
 * The session's slash commands. `system/init` lists names only (every turn); `commands_changed`
 * carries the full entries, whose descriptions and hints are kept for later name-only lists.
 * Both return the list to publish, or undefined when it did not change.
 */
export class SlashCommandCatalog {
  readonly #known = new Map<string, SlashCommand>();
  #published: SlashCommand[] | undefined;

  fromInit(names: unknown): SlashCommand[] | undefined {
    if (!Array.isArray(names)) return undefined;
    const commands: SlashCommand[] = [];
    for (const item of names) {
      const name = visibleName(item);
      if (name !== undefined) commands.push(this.#known.get(name) ?? { name, description: '' });
    }
    return this.#publishIfChanged(commands);
  }

  fromChanged(entries: unknown): SlashCommand[] | undefined {
    if (!Array.isArray(entries)) return undefined;
    this.#known.clear();
    const commands: SlashCommand[] = [];
    for (const item of entries) {
      const entry = asRecord(item);
      const name = visibleName(entry?.name);
      if (entry === undefined || name === undefined) continue;
      const command: SlashCommand = { name, description: stringOrEmpty(entry.description).trim() };
      const hint = nonEmptyString(stringOrEmpty(entry.argumentHint).trim());
      if (hint !== undefined) command.input = { hint };
      this.#known.set(name, command);
      commands.push(command);
    }
    return this.#publishIfChanged(commands);
  }

  /** A new Query generation re-announces its commands even when they did not change. */
  reset(): void {
    this.#published = undefined;
  }

  #publishIfChanged(commands: SlashCommand[]): SlashCommand[] | undefined {
    if (this.#published !== undefined && sameCommands(this.#published, commands)) return undefined;
    this.#published = commands;
    return commands;
  }
}

function visibleName(value: unknown): string | undefined {
  const raw = typeof value === 'string' ? value.trim() : '';
  if (raw === '' || HIDDEN_COMMANDS.has(raw)) return undefined;
  return raw.endsWith(MCP_SUFFIX) ? `mcp:${raw.slice(0, -MCP_SUFFIX.length)}` : raw;
}

function sameCommands(left: SlashCommand[], right: SlashCommand[]): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index++) {
    const a = left[index];
    const b = right[index];
    if (a?.name !== b?.name || a?.description !== b?.description || a?.input?.hint !== b?.input?.hint) return false;
  }
  return true;
}

import { readFileSync } from 'node:fs';
import { errorText } from './commands/errorText.ts';

/** A subcommand: parses its own arguments (including `--help`) and sets `process.exitCode` on failure. */
export type CommandRun = (argv: string[]) => Promise<void>;

interface CommandEntry {
  readonly summary: string;
  /** Loaded only when the command runs, so `outrigger mock-anthropic` never pays for the sidecar and vice versa. */
  readonly load: () => Promise<CommandRun>;
}

/** Every subcommand; a new one is one more lazily loaded entry. */
const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  chat: {
    summary: 'chat with Claude Code through the sidecar in this terminal (a demo model when no credential is found)',
    load: async () => (await import('./commands/chat.ts')).runChatCommand,
  },
  serve: {
    summary: 'run the host: durable sessions over HTTP + SSE and the web UI (prints the URL to open)',
    load: async () => (await import('./commands/serve.ts')).runServeCommand,
  },
  token: {
    summary: 'token rotate: replace the access token (a running host takes it at once, old links stop working)',
    load: async () => (await import('./commands/token.ts')).runTokenCommand,
  },
  acp: {
    summary: 'speak the Agent Client Protocol on stdio for an editor (Zed, JetBrains, Neovim), through the host',
    load: async () => (await import('./commands/acp.ts')).runAcpCommand,
  },
  doctor: {
    summary: 'check Node, Claude Code, the credential, the data directory and the port; exit 1 if any fails',
    load: async () => (await import('./commands/doctor.ts')).runDoctorCommand,
  },
  sidecar: {
    summary: 'run the protocol-10 Claude SDK sidecar on stdin/stdout',
    load: async () => (await import('./commands/sidecar.ts')).runSidecarCommand,
  },
  'mock-anthropic': {
    summary: 'run the scripted Anthropic Messages API (--port 0 --scenario FILE|demo)',
    load: async () => (await import('@outrigger/mock-anthropic/cli')).runMockAnthropicCommand,
  },
};

/** Old names that keep working. */
const ALIASES: Readonly<Record<string, string>> = { start: 'chat' };

export function usage(): string {
  const names = Object.keys(COMMANDS);
  const width = Math.max(...names.map((name) => name.length));
  const aliasesOf = (name: string) => Object.keys(ALIASES).filter((alias) => ALIASES[alias] === name);
  const lines = names.map((name) => {
    const aliases = aliasesOf(name);
    const also = aliases.length > 0 ? ` (also: ${aliases.join(', ')})` : '';
    return `  ${name.padEnd(width)}  ${COMMANDS[name]?.summary}${also}`;
  });
  return [
    'usage: outrigger <command> [options]',
    '       outrigger <command> --help',
    '       outrigger --version',
    '',
    'commands:',
    ...lines,
    '',
  ].join('\n');
}

export function version(): string {
  const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return packageJson.version;
}

/** Runs `outrigger <argv>`; resolves with the exit code. */
export async function runOutrigger(argv: readonly string[]): Promise<number> {
  const [given, ...rest] = argv;
  if (given === undefined || given === '--help' || given === '-h' || given === 'help') {
    process.stdout.write(usage());
    return 0;
  }
  if (given === '--version' || given === '-v') {
    process.stdout.write(`outrigger ${version()}\n`);
    return 0;
  }
  const name = ALIASES[given] ?? given;
  const command = COMMANDS[name];
  if (command === undefined) {
    process.stderr.write(`outrigger: unknown command '${given}'\n\n${usage()}`);
    return 2;
  }
  try {
    await (await command.load())(rest);
  } catch (error) {
    if (isUsageError(error)) {
      process.stderr.write(`outrigger ${name}: ${errorText(error)}\n(outrigger ${name} --help shows the options)\n`);
      return 2;
    }
    process.stderr.write(`outrigger ${name}: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`);
    return 1;
  }
  return typeof process.exitCode === 'number' ? process.exitCode : 0;
}

/** `node:util` parseArgs rejects unknown options and stray arguments with these codes. */
function isUsageError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

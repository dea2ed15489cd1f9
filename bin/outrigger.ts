#!/usr/bin/env node
// The single `outrigger` command. Each subcommand lives in the package that owns it and is loaded lazily,
// so `outrigger mock-anthropic` never pays for the sidecar and vice versa.

type Command = { summary: string; run: (argv: string[]) => Promise<void> };

const commands: Record<string, Command> = {
  start: {
    summary: 'chat with Claude Code through the sidecar in this terminal (demo model without ANTHROPIC_API_KEY)',
    run: async (argv) => (await import('./commands/start.ts')).runStartCommand(argv),
  },
  serve: {
    summary: 'run the host: durable sessions over HTTP + SSE and the web UI (prints the URL to open)',
    run: async (argv) => (await import('./commands/serve.ts')).runServeCommand(argv),
  },
  'mock-anthropic': {
    summary: 'run the scripted Anthropic Messages API (--port 0 --scenario FILE|demo)',
    run: async (argv) => (await import('@outrigger/mock-anthropic/cli')).runMockAnthropicCommand(argv),
  },
  sidecar: {
    summary: 'run the protocol-10 Claude SDK sidecar on stdin/stdout',
    run: async () => {
      await import('@outrigger/claude-sdk-sidecar/main');
    },
  },
};

function usage(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  const lines = Object.entries(commands).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`);
  return `usage: outrigger <command> [options]\n\ncommands:\n${lines.join('\n')}\n`;
}

const [name, ...rest] = process.argv.slice(2);
if (name === undefined || name === '--help' || name === '-h') {
  process.stdout.write(usage());
} else {
  const command = commands[name];
  if (command === undefined) {
    process.stderr.write(`outrigger: unknown command '${name}'\n\n${usage()}`);
    process.exitCode = 2;
  } else {
    await command.run(rest);
  }
}

import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs, styleText } from 'node:util';
import { type SidecarProcess, spawnSidecarProcess } from '@outrigger/claude-sdk-sidecar/process';
import type { StartResult } from '@outrigger/protocol';
import { createChatRenderer } from './chatRenderer.ts';
import { ChatSession } from './chatSession.ts';
import { errorText } from './errorText.ts';
import { LineReader } from './lineReader.ts';
import { openModelBackend } from './modelBackend.ts';

const DEFAULT_DATA_DIR = fileURLToPath(new URL('../../.data', import.meta.url));

/** Claude Code's first start in a fresh config dir can take a while on a busy machine. */
const START_TIMEOUT_MS = 120_000;
const CLOSE_TIMEOUT_MS = 15_000;
const REQUEST_TIMEOUT_MS = 60_000;
/** Sidecar stderr lines shown when it fails. */
const STDERR_TAIL_LINES = 20;

export const START_USAGE = `usage: outrigger start [--cwd DIR] [--data-dir DIR]

A terminal chat with Claude Code through the Outrigger sidecar. Without ANTHROPIC_API_KEY (or
ANTHROPIC_AUTH_TOKEN / ANTHROPIC_BASE_URL) it talks to the offline demo model.

  --cwd DIR       the session's working directory (default: DATA_DIR/workspace)
  --data-dir DIR  where Outrigger keeps its files (default: .data in the repository)
`;

export async function runStartCommand(argv: string[]): Promise<void> {
  let values: { cwd?: string; 'data-dir'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { cwd: { type: 'string' }, 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    process.stderr.write(`outrigger start: ${errorText(error)}\n\n${START_USAGE}`);
    process.exitCode = 2;
    return;
  }
  if (values.help) {
    process.stdout.write(START_USAGE);
    return;
  }
  const dataDir = resolve(values['data-dir'] ?? DEFAULT_DATA_DIR);
  const cwd = resolve(values.cwd ?? join(dataDir, 'workspace'));
  if (values.cwd === undefined) await mkdir(cwd, { recursive: true });
  process.exitCode = await chat({ dataDir, cwd });
}

/** The whole chat; resolves with the exit code once every child is gone. */
async function chat(options: { dataDir: string; cwd: string }): Promise<number> {
  const { stdin, stdout } = process;
  const renderer = createChatRenderer({
    write: (text) => stdout.write(text),
    style: (style, text) => styleText(style, text, { stream: stdout }),
  });
  const backend = await openModelBackend({ processEnv: process.env, dataDir: options.dataDir });
  let sidecar: SidecarProcess | undefined;
  try {
    renderer.line(
      backend.kind === 'demo' ? styleText(['bold', 'yellow'], backend.headline, { stream: stdout }) : backend.headline,
    );
    for (const line of backend.notice) renderer.line(line);
    sidecar = await spawnSidecarProcess({ env: backend.sidecarEnv, requestTimeoutMs: REQUEST_TIMEOUT_MS });
    const { client } = sidecar;
    const agentSessionId = randomUUID();
    try {
      await client.request<StartResult>('start', { agentSessionId, cwd: options.cwd }, { timeoutMs: START_TIMEOUT_MS });
    } catch (error) {
      renderer.line(`Claude Code did not start: ${errorText(error)}`);
      for (const line of sidecar.stderrLines.slice(-STDERR_TAIL_LINES)) renderer.line(`  ${line}`);
      return 1;
    }
    renderer.line(`Claude Code is ready in ${options.cwd}. /help for commands; Ctrl-C cancels a turn.`);

    const reader = new LineReader();
    const terminal = stdin.isTTY === true;
    const readline = createInterface({ input: stdin, output: stdout, terminal });
    readline.on('line', (line) => reader.push(line));
    readline.on('close', () => reader.end());
    const session = new ChatSession({
      client,
      agentSessionId,
      reader,
      renderer,
      showPrompt: (prompt, purpose) => {
        if (terminal) {
          readline.setPrompt(prompt);
          readline.prompt();
        } else if (purpose === 'answer') {
          // Piped input is not echoed; the choices still belong in the transcript.
          renderer.line(prompt.trimEnd());
        }
      },
    });
    const interrupt = () => session.interrupt();
    const terminate = () => {
      reader.end({ discard: true });
      session.interrupt();
    };
    // In a terminal readline turns Ctrl-C into its own event; with piped input it is a real signal.
    readline.on('SIGINT', interrupt);
    process.on('SIGINT', interrupt);
    process.on('SIGTERM', terminate);
    try {
      await session.run();
    } finally {
      process.off('SIGINT', interrupt);
      process.off('SIGTERM', terminate);
      readline.close();
    }
    if (client.closed) {
      renderer.line('The sidecar exited unexpectedly. Its last diagnostics:');
      for (const line of sidecar.stderrLines.slice(-STDERR_TAIL_LINES)) renderer.line(`  ${line}`);
      return 1;
    }
    await client.request('close', { agentSessionId }, { timeoutMs: CLOSE_TIMEOUT_MS }).catch((error: unknown) => {
      renderer.line(`closing the session failed: ${errorText(error)}`);
    });
    return 0;
  } finally {
    await sidecar?.stop({ timeoutMs: CLOSE_TIMEOUT_MS });
    await backend.close();
  }
}

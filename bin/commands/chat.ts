import { randomUUID } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type SidecarProcess, spawnSidecarProcess } from '@outrigger/claude-sdk-sidecar/process';
import { defaultDataDir, defaultSessionCwd } from '@outrigger/host';
import type { StartResult } from '@outrigger/protocol';
import { PACKAGE_LAYOUT } from '../packageLayout.ts';
import { createChatRenderer } from './chatRenderer.ts';
import { ChatSession } from './chatSession.ts';
import { parseCommandLine } from './commandLine.ts';
import { errorText } from './errorText.ts';
import { LineReader } from './lineReader.ts';
import { openModelBackend } from './modelBackend.ts';
import { TerminalConsole } from './terminalConsole.ts';
import { styled } from './terminalText.ts';

/** Claude Code's first start in a fresh config dir can take a while on a busy machine. */
const START_TIMEOUT_MS = 120_000;
const CLOSE_TIMEOUT_MS = 15_000;
const REQUEST_TIMEOUT_MS = 60_000;
/** Sidecar stderr lines shown when it fails. */
const STDERR_TAIL_LINES = 20;

export const CHAT_USAGE = `usage: outrigger chat [--cwd DIR] [--data-dir DIR]
       npm run outrigger -- chat [--cwd DIR] [--data-dir DIR]   (npm passes options on only after --)

A terminal chat with Claude Code through the Outrigger sidecar. It uses Claude when it finds a
credential: ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, ANTHROPIC_BASE_URL or CLAUDE_CODE_OAUTH_TOKEN in
the environment or in Claude's settings files, or a Claude login; otherwise the offline demo model.
It says which it chose and why. (outrigger start is the same command under its old name.)

  --cwd DIR       the session's working directory, an existing directory (default: where it was started when installed;
                  DATA_DIR/workspace in the repository)
  --data-dir DIR  where Outrigger keeps its files (default: as for outrigger serve)
  -h, --help      this help
`;

export async function runChatCommand(argv: string[]): Promise<void> {
  const values = parseCommandLine(
    { name: 'chat', usage: CHAT_USAGE, options: { cwd: { type: 'string' }, 'data-dir': { type: 'string' } } },
    argv,
  );
  if (values === undefined) return;
  const dataDir = resolve(values['data-dir'] ?? defaultDataDir());
  let cwd: string;
  const startedIn = defaultSessionCwd(process.cwd());
  if (values.cwd === undefined && startedIn !== undefined) {
    cwd = startedIn;
  } else if (values.cwd === undefined) {
    cwd = join(dataDir, 'workspace');
    await mkdir(cwd, { recursive: true });
  } else {
    cwd = resolve(values.cwd);
    const problem = await directoryProblem(cwd);
    if (problem) {
      process.stderr.write(`outrigger chat: --cwd ${cwd}: ${problem}\n`);
      process.exitCode = 2;
      return;
    }
  }
  process.exitCode = await chat({ dataDir, cwd });
}

/** Why `path` cannot be a session's working directory, or undefined when it can. */
async function directoryProblem(path: string): Promise<string | undefined> {
  try {
    return (await stat(path)).isDirectory() ? undefined : 'not a directory';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'no such directory';
    return errorText(error);
  }
}

/** The whole chat; resolves with the exit code once every child is gone. */
async function chat(options: { dataDir: string; cwd: string }): Promise<number> {
  const { stdin, stdout } = process;
  const terminal = stdin.isTTY === true && stdout.isTTY === true;
  const terminalConsole = new TerminalConsole({
    output: stdout,
    color: stdout.isTTY === true && stdout.hasColors(),
  });
  const renderer = createChatRenderer({ write: (segments) => terminalConsole.write(segments) });

  const backend = await openModelBackend({ processEnv: process.env, dataDir: options.dataDir, cwd: options.cwd });
  let sidecar: SidecarProcess | undefined;
  try {
    renderer.line(backend.kind === 'demo' ? [styled(['bold', 'yellow'], backend.headline)] : backend.headline);
    for (const line of backend.notice) renderer.line(line);
    sidecar = await spawnSidecarProcess({
      env: backend.sidecarEnv,
      entry: PACKAGE_LAYOUT.sidecarEntry,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
    });
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
    const session = new ChatSession({
      client,
      agentSessionId,
      reader,
      renderer,
      interactive: terminal,
      showPrompt: (prompt, purpose) => {
        if (terminal) terminalConsole.prompt(prompt);
        // Piped input is not echoed; the choices still belong in the transcript.
        else if (purpose === 'answer') renderer.line(prompt.trimEnd());
      },
      withdrawPrompt: () => terminalConsole.withdrawPrompt(),
    });
    terminalConsole.listen({
      input: stdin,
      terminal,
      onLine: (line) => reader.push(line),
      onInterrupt: () => session.interrupt(),
      onEnd: () => {
        reader.end();
        if (!terminal || !session.busy) return undefined;
        // Ctrl-D mid-turn: leave once the turn is over. The keyboard stays attached meanwhile, so that
        // Ctrl-C still cancels and typing is not echoed into the answer.
        renderer.line([styled('dim', '(leaving once this turn ends; Ctrl-C cancels it)')]);
        return 'keep-reading';
      },
    });
    const interrupt = () => session.interrupt();
    const terminate = () => {
      reader.end({ discard: true });
      session.interrupt();
    };
    // In a terminal Ctrl-C reaches the console as a key; with piped input it is a real signal.
    process.on('SIGINT', interrupt);
    process.on('SIGTERM', terminate);
    try {
      await session.run();
    } finally {
      process.off('SIGINT', interrupt);
      process.off('SIGTERM', terminate);
      terminalConsole.close();
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
    terminalConsole.close();
    await sidecar?.stop({ timeoutMs: CLOSE_TIMEOUT_MS });
    await backend.close();
  }
}

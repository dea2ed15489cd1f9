import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { demoChatEnv, OUTRIGGER } from './chatProcessTestSupport.ts';

/** util-linux `script` gives the chat a real pseudo-terminal: raw keys, echo, line editing, Ctrl-C as a key. */
export const hasScript = process.platform === 'linux' && spawnSync('script', ['--version']).status === 0;

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** What a terminal shows of the output: escape sequences (styles, cursor moves, erases) dropped. */
export function visible(output: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: reading terminal output
  return output.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
}

/** `outrigger chat` on the demo model in a 100×40 pseudo-terminal. */
export interface TerminalChat {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<unknown[]>;
  /** Everything the terminal received, escape sequences included. */
  output(): string;
  /** Sends keys as typed: `\r` is Enter, `\x03` Ctrl-C, `\x04` Ctrl-D. */
  type(keys: string): void;
  /** Waits until the screen shows `pattern` after position `from` of the visible output; returns where it ends. */
  waitFor(pattern: RegExp, from: number, timeoutMs?: number): Promise<number>;
}

export function spawnTerminalChat(home: string): TerminalChat {
  const command = `stty cols 100 rows 40; exec ${[process.execPath, OUTRIGGER, 'chat', '--data-dir', join(home, 'data')].map(shellQuote).join(' ')}`;
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    env: { ...demoChatEnv(home), TERM: 'xterm-256color' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  return {
    child,
    exited,
    output: () => output,
    type: (keys) => {
      child.stdin.write(keys);
    },
    waitFor: async (pattern, from, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const shown = visible(output);
        const match = pattern.exec(shown.slice(from));
        if (match) return from + match.index + match[0].length;
        assert.ok(child.exitCode === null, `the chat exited before showing ${pattern}:\n${shown}`);
        assert.ok(Date.now() < deadline, `${pattern} not shown within ${timeoutMs} ms:\n${shown}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { descendants } from '@outrigger/claude-sdk-sidecar/testing';
import { assertCleanExit, cleanUpChatProcess, demoChatEnv, OUTRIGGER } from './chatProcessTestSupport.ts';

/** util-linux `script` gives the chat a real pseudo-terminal: raw keys, echo, line editing, Ctrl-C as a key. */
const hasScript = process.platform === 'linux' && spawnSync('script', ['--version']).status === 0;

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** What a terminal shows of the output: escape sequences (styles, cursor moves, erases) dropped. */
function visible(output: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: reading terminal output
  return output.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
}

test('in a terminal: typing stays out of the streaming answer, Ctrl-C cancels, the approval shows the whole command, Ctrl-D mid-turn leaves cleanly', {
  skip: !hasScript && 'needs util-linux script for a pseudo-terminal',
}, async () => {
  const home = await mkdtemp(join(tmpdir(), 'outrigger-tty-'));
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
  /** Waits until the screen shows `pattern` after position `from` of the visible output; returns where it ends. */
  const waitFor = async (pattern: RegExp, from: number, timeoutMs = 60_000): Promise<number> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const shown = visible(output);
      const match = pattern.exec(shown.slice(from));
      if (match) return from + match.index + match[0].length;
      assert.ok(child.exitCode === null, `the chat exited before showing ${pattern}:\n${shown}`);
      assert.ok(Date.now() < deadline, `${pattern} not shown within ${timeoutMs} ms:\n${shown}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const type = (keys: string) => child.stdin.write(keys);
  let processes: number[] = [];
  try {
    let at = await waitFor(/is ready in .*\n› /, 0);
    processes = descendants(child.pid ?? -1);

    // Typing while the answer streams is neither echoed into it nor lost: it comes back at the prompt.
    type('slow please\r');
    at = await waitFor(/This is the slow demo answer/, at);
    type('typed ahead');
    await new Promise((resolve) => setTimeout(resolve, 700));
    type('\x03');
    const canceled = await waitFor(/— canceled/, at);
    assert.doesNotMatch(visible(output).slice(at, canceled), /typed ahead/, 'typed text spliced into the answer');
    at = await waitFor(/cancel: canceled[^\n]*\n› typed ahead/, at);

    // The approval prompt shows the command to its end (the demo's command is longer than one line).
    type('\x15run a command\r');
    at = await waitFor(
      /Claude wants to use Bash: mkdir -p outrigger-demo && [^\n]*&& cat outrigger-demo\/hello\.txt\n/,
      at,
    );
    at = await waitFor(/Allow for \[s\]ession \/ \[A\]llow \/ \[R\]eject > /, at);
    type('r\r');
    at = await waitFor(/— done \(end_turn\)[^\n]*\n› /, at);

    // Ctrl-D while a turn runs: no crash; the chat leaves once the turn ends (Ctrl-C ends it now).
    type('slow please\r');
    at = await waitFor(/This is the slow demo answer/, at);
    type('\x04');
    at = await waitFor(/\(leaving once this turn ends; Ctrl-C cancels it\)/, at);
    type('\x03');
    at = await waitFor(/— canceled/, at);

    await assertCleanExit(child, exited, processes, () => visible(output));
    assert.doesNotMatch(output, /ERR_USE_AFTER_CLOSE|Error:/);
  } finally {
    await cleanUpChatProcess(child, processes, home);
  }
});

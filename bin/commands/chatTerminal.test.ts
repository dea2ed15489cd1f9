import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { descendants } from '@outrigger/claude-sdk-sidecar/testing';
import { assertCleanExit, cleanUpChatProcess } from './chatProcessTestSupport.ts';
import { hasScript, spawnTerminalChat, visible } from './chatTerminalTestSupport.ts';

test('in a terminal: typing stays out of the streaming answer, Ctrl-C cancels, the approval shows the whole command, Ctrl-D mid-turn leaves cleanly', {
  skip: !hasScript && 'needs util-linux script for a pseudo-terminal',
}, async () => {
  const home = await mkdtemp(join(tmpdir(), 'outrigger-tty-'));
  const { child, exited, output, type, waitFor } = spawnTerminalChat(home);
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
    assert.doesNotMatch(visible(output()).slice(at, canceled), /typed ahead/, 'typed text spliced into the answer');
    at = await waitFor(/Stopped\. The turn was canceled while Claude Code was answering\.\n› typed ahead/, at);

    // The approval prompt shows the command to its end (the demo's command is longer than one line).
    type('\x15run a command\r');
    at = await waitFor(
      /Claude wants to use Bash: mkdir -p outrigger-demo && [^\n]*&& cat outrigger-demo\/hello\.txt\n/,
      at,
    );
    at = await waitFor(/Allow for \[s\]ession \/ \[A\]llow \/ \[r\]eject \(Enter: Allow\) > /, at);
    type('r\r');
    at = await waitFor(/— done \(end_turn\)[^\n]*\n› /, at);

    // Ctrl-D while a turn runs: no crash; the chat leaves once the turn ends (Ctrl-C ends it now).
    type('slow please\r');
    at = await waitFor(/This is the slow demo answer/, at);
    type('\x04');
    at = await waitFor(/\(leaving once this turn ends; Ctrl-C cancels it\)/, at);
    type('\x03');
    at = await waitFor(/— canceled/, at);

    await assertCleanExit(child, exited, processes, () => visible(output()));
    assert.doesNotMatch(output(), /ERR_USE_AFTER_CLOSE|Error:/);
  } finally {
    await cleanUpChatProcess(child, processes, home);
  }
});

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { descendants } from '@outrigger/claude-sdk-sidecar/testing';
import { assertCleanExit, cleanUpChatProcess } from './chatProcessTestSupport.ts';
import { hasScript, spawnTerminalChat, visible } from './chatTerminalTestSupport.ts';

const APPROVAL_PROMPT = /Allow for \[s\]ession \/ \[A\]llow \/ \[r\]eject \(Enter: Allow\) > /;

test('in a terminal, with the real sidecar and Claude Code: a word the approval does not take is explained, Enter allows once, Ctrl-C at an approval says in words what stopped', {
  skip: !hasScript && 'needs util-linux script for a pseudo-terminal',
}, async () => {
  const home = await mkdtemp(join(tmpdir(), 'outrigger-tty-dialog-'));
  const { child, exited, output, type, waitFor } = spawnTerminalChat(home);
  const created = join(home, 'data', 'workspace', 'outrigger-demo', 'hello.txt');
  let processes: number[] = [];
  try {
    let at = await waitFor(/is ready in .*\n› /, 0);
    processes = descendants(child.pid ?? -1);

    type('run a command\r');
    at = await waitFor(/Claude wants to use Bash: mkdir -p outrigger-demo [^\n]*\n/, at);
    at = await waitFor(APPROVAL_PROMPT, at);
    // A word it does not take: said, and asked again; nothing is sent yet.
    type('maybe\r');
    at = await waitFor(
      /maybe\nNot a choice\. Type s \(Allow for session\), a or y \(Allow\), r or n \(Reject\), or press Enter for Allow\.\n/,
      at,
    );
    at = await waitFor(APPROVAL_PROMPT, at);
    assert.equal(existsSync(created), false, 'nothing ran before the answer');
    // Enter: the default, allow once, and the chat says so (Enter leaves nothing on screen itself).
    type('\r');
    at = await waitFor(/\n→ Allow\n/, at);
    at = await waitFor(/✓ Bash/, at);
    at = await waitFor(/— done \(end_turn\)[^\n]*\n› /, at);
    assert.equal(existsSync(created), true, 'the allowed command ran');

    // Ctrl-C while Claude Code waits for the approval: the turn stops and the chat says how, in words.
    type('run a command again\r');
    at = await waitFor(APPROVAL_PROMPT, at);
    type('\x03');
    // The prompt stays as a record, its line ended; it is not drawn again under the lines that follow.
    at = await waitFor(/^\nStopping…\n/, at);
    at = await waitFor(/— canceled[^\n]*\n/, at);
    at = await waitFor(/Stopped\. The turn was canceled while Claude Code was waiting for your approval\.\n› /, at);

    // Ctrl-D at the prompt leaves.
    type('\x04');
    await assertCleanExit(child, exited, processes, () => visible(output()));
    const shown = visible(output());
    assert.doesNotMatch(shown, /cancel: |provider_active|waiting_approval/, 'no protocol words on the screen');
    assert.doesNotMatch(shown, /> (✗|—|Stopped)/, 'a withdrawn prompt was drawn again before later output');
    assert.doesNotMatch(output(), /ERR_USE_AFTER_CLOSE|Error:/);
  } finally {
    await cleanUpChatProcess(child, processes, home);
  }
});

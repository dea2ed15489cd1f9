import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { descendants } from '@outrigger/claude-sdk-sidecar/testing';
import { assertCleanExit, cleanUpChatProcess, demoChatEnv, spawnChat } from './chatProcessTestSupport.ts';

test('the chat talks to the demo model through the real sidecar and exits 0 on EOF, leaving no child', async () => {
  const home = await mkdtemp(join(tmpdir(), 'outrigger-chat-'));
  const chat = spawnChat(home, demoChatEnv(home));
  const { child, exited } = chat;
  let processes: number[] = [];
  try {
    child.stdin.end('hello there\n');
    await chat.untilReady();
    processes = descendants(child.pid ?? -1);

    await assertCleanExit(child, exited, processes, () => `${chat.stdout()}\n${chat.stderr()}`);
    const stdout = chat.stdout();
    assert.match(stdout, /DEMO MODEL — offline scripted answers: no Claude credential was found/);
    assert.match(stdout, /markdown +a streamed formatted answer/);
    // The demo model's fallback answer, streamed and rendered (no markdown markers; piped, no styles
    // either), then the turn's summary line.
    assert.match(stdout, /Hi! I'm the Outrigger demo model[\s\S]*Set ANTHROPIC_API_KEY and restart/);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: piped output carries no escape sequence
    assert.doesNotMatch(stdout, /\x1b/);
    assert.match(stdout, /— done \(end_turn\) · \d+\.\d s · 0 tool calls/);
    assert.equal(chat.stderr(), '');
  } finally {
    await cleanUpChatProcess(child, processes, home);
  }
});

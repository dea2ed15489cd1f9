import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { findBundledClaudeBinary } from '@outrigger/claude-sdk-sidecar/executable';
import type { MessageView } from '@outrigger/host-api';
import type { RecordedRequest } from '@outrigger/mock-anthropic';
import { caseScripts, text } from '../src/sessions/testing/scriptedModel.ts';
import { lastSeqOf, readEventsUntil, runTurnToDone } from './harness/sseReader.ts';
import { startTestHost, type TestHost } from './harness/testHost.ts';

/*
 * Issue 19, the session side, with the REAL host, sidecar and Claude Code against mock-anthropic: a Claude Code
 * session from the terminal continued in Outrigger (resume and fork), an Outrigger session continued in the
 * terminal with its `terminalCommand` (run through `bash -c`, non-interactively with `-p`), and the transcript
 * that grew there shown in Outrigger before its next turn, whose Claude Code has read it.
 */

let testHost: TestHost;
const cases = caseScripts();
const claudeBinary = findBundledClaudeBinary();

before(async () => {
  // The host's own Claude Code history (`history/`): its index, its transcript reader and its watch.
  testHost = await startTestHost({ rules: [cases.rule] });
});
after(async () => {
  await testHost?.close();
});

/** Runs `command` through `bash -c` like a person at a terminal would, with `claude` on PATH; its group is reaped. */
async function runInTerminal(command: string, env: Record<string, string>): Promise<{ code: number; output: string }> {
  assert.ok(claudeBinary, 'the SDK’s Claude Code binary is installed');
  const child = spawn('bash', ['-c', command], {
    cwd: testHost.home.root,
    env: { ...env, PATH: `${dirname(claudeBinary)}:${env.PATH ?? ''}` },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const timer = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, 'SIGKILL'), 60_000);
  try {
    const code = await new Promise<number>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (exitCode) => resolve(exitCode ?? -1));
    });
    return { code, output };
  } finally {
    clearTimeout(timer);
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group is gone already.
    }
  }
}

/** The terminal's environment: the test home's (mock-anthropic, its HOME), without the config dir the command names. */
function terminalEnv(): Record<string, string> {
  const { CLAUDE_CONFIG_DIR: _named, ...env } = testHost.home.env;
  return env;
}

function requestsWith(fragment: string): RecordedRequest[] {
  return testHost.mock.messageRequests().filter((request) => JSON.stringify(request.body).includes(fragment));
}

/** The messages of the request that asked `prompt` (the last one that did), as JSON. */
function conversationOf(prompt: string): string {
  const request = requestsWith(prompt).at(-1);
  assert.ok(request, `the model was asked ${prompt}`);
  return JSON.stringify((request.body as { messages?: unknown }).messages);
}

async function messagesOf(sessionId: string): Promise<MessageView[]> {
  return (await testHost.client.call('listMessages', { params: { id: sessionId }, query: { limit: 200 } })).messages;
}

const noticeText = (row: MessageView) => row.content.map((block) => (block.type === 'text' ? block.text : '')).join('');

test('a Claude Code session from the terminal is resumed (and forked) in Outrigger, which goes on with its conversation', {
  timeout: 180_000,
}, async () => {
  const claudeSessionId = randomUUID();
  const firstPrompt = cases.prompt('TERMINAL-FIRST name a colour', { prompt: text('TERMINAL-ANSWER teal.') });
  const terminal = await runInTerminal(
    `cd '${testHost.cwd}' && claude --session-id ${claudeSessionId} -p "${firstPrompt}"`,
    testHost.home.env,
  );
  assert.equal(terminal.code, 0, terminal.output);
  assert.match(terminal.output, /TERMINAL-ANSWER teal/);

  const call = (mode: 'resume' | 'fork', force?: boolean) =>
    testHost.client.call('continueHistory', {
      params: { claudeSessionId },
      body: { mode, ...(force === undefined ? {} : { force }) },
    });
  // Just written: it may be open in a terminal.
  await assert.rejects(call('resume'), (error: { code?: string; message?: string }) => {
    assert.equal(error.code, 'history_in_use');
    assert.match(error.message ?? '', /open in a terminal/);
    assert.match(error.message ?? '', /[Ff]ork/);
    return true;
  });

  const resumed = await call('resume', true);
  const ids = [resumed.id];
  try {
    assert.equal(resumed.providerSessionId, claudeSessionId, 'the Outrigger session resumes that Claude Code session');
    const detail = (await testHost.client.call('getSession', { params: { id: resumed.id } })).session;
    assert.equal(detail.cwd, testHost.cwd);
    assert.deepEqual(detail.continuedFrom, { claudeSessionId, mode: 'resume', rows: 2 });
    assert.equal(
      detail.terminalCommand,
      `cd ${testHost.cwd} && CLAUDE_CONFIG_DIR=${testHost.home.configDir} claude --resume ${claudeSessionId}`,
    );

    const again = await fetch(`${testHost.host.baseUrl}/api/history/${claudeSessionId}/continue`, {
      method: 'POST',
      headers: { authorization: `Bearer ${testHost.host.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'resume', force: true }),
    });
    assert.equal(again.status, 409);
    const refused = (await again.json()) as { error: { code: string; sessionId?: string } };
    assert.equal(refused.error.code, 'already_continued');
    assert.equal(refused.error.sessionId, resumed.id, 'the refusal names the session that continues it');

    const nextPrompt = cases.prompt('OUTRIGGER-NEXT and another one?', { prompt: text('OUTRIGGER-ANSWER coral.') });
    const turn = await runTurnToDone(testHost.client, resumed.id, nextPrompt);
    assert.equal((turn.frames.at(-1)?.data as { outcome?: string } | undefined)?.outcome, 'completed');
    const asked = conversationOf('OUTRIGGER-NEXT');
    assert.ok(asked.includes('TERMINAL-FIRST'), 'the first Outrigger turn carries the terminal’s prompt');
    assert.ok(asked.includes('TERMINAL-ANSWER teal'), '… and its answer');
    const rows = await messagesOf(resumed.id);
    assert.deepEqual(
      rows.filter((row) => row.noticeKind === 'outside_changes'),
      [],
      'what the session continued from is no outside change',
    );

    // A fork while the original is in use: a copy under a new id, which goes on from the same conversation.
    const forked = await call('fork');
    ids.push(forked.id);
    assert.notEqual(forked.providerSessionId, claudeSessionId);
    const forkDetail = (await testHost.client.call('getSession', { params: { id: forked.id } })).session;
    assert.equal(forkDetail.continuedFrom?.mode, 'fork');
    assert.equal(forkDetail.continuedFrom?.claudeSessionId, claudeSessionId);
    const forkPrompt = cases.prompt('FORK-NEXT one more?', { prompt: text('FORK-ANSWER amber.') });
    await runTurnToDone(testHost.client, forked.id, forkPrompt);
    const forkAsked = conversationOf('FORK-NEXT');
    assert.ok(forkAsked.includes('TERMINAL-ANSWER teal'), 'the fork’s turn carries the conversation it copied');
    assert.ok(forkAsked.includes('OUTRIGGER-ANSWER coral'), 'a fork made after the resume copies its turn too');
  } finally {
    for (const id of ids) await testHost.client.call('closeSession', { params: { id } }).catch(() => undefined);
  }
});

test('an Outrigger session goes on in the terminal with its command, and Outrigger shows and uses what grew there', {
  timeout: 180_000,
}, async () => {
  // A directory a shell would misread unquoted.
  const cwd = join(testHost.cwd, `it's a $HOME "dir"`);
  await mkdir(cwd);
  const sessionId = (await testHost.client.call('createSession', { body: { cwd, title: 'back to the terminal' } })).id;
  try {
    const first = cases.prompt('OUTRIGGER-ONE plan the work', { prompt: text('OUTRIGGER-ONE-ANSWER first, tests.') });
    await runTurnToDone(testHost.client, sessionId, first);
    const detail = (await testHost.client.call('getSession', { params: { id: sessionId } })).session;
    // Its transcript is in the history too: resuming it a second time is refused with a link to this session.
    await assert.rejects(
      testHost.client.call('continueHistory', {
        params: { claudeSessionId: detail.providerSessionId },
        body: { mode: 'resume', force: true },
      }),
      (error: { code?: string }) => error.code === 'already_continued',
    );

    const terminalPrompt = cases.prompt('TERMINAL-TWO what else', { prompt: text('TERMINAL-TWO-ANSWER then docs.') });
    // The history's watch sees the transcript grow while the session is idle: the notice comes without a turn.
    const noticed = readEventsUntil(
      testHost.client,
      sessionId,
      (frame) =>
        frame.event === 'notice' && (frame.data as { message: MessageView }).message.noticeKind === 'outside_changes',
      { lastEventId: await lastSeqOf(testHost.client, sessionId), timeoutMs: 60_000 },
    );
    const ran = await runInTerminal(`${detail.terminalCommand} -p '${terminalPrompt}'`, terminalEnv());
    assert.equal(ran.code, 0, ran.output);
    assert.match(ran.output, /TERMINAL-TWO-ANSWER then docs/);
    const inTerminal = conversationOf('TERMINAL-TWO');
    assert.ok(inTerminal.includes('OUTRIGGER-ONE-ANSWER'), 'the terminal resumed the Outrigger session’s conversation');
    const shown = (await noticed).at(-1);
    assert.ok(shown !== undefined);
    assert.match(noticeText((shown.data as { message: MessageView }).message), /TERMINAL-TWO-ANSWER then docs/);

    const third = cases.prompt('OUTRIGGER-THREE and now?', { prompt: text('OUTRIGGER-THREE-ANSWER ship it.') });
    const turn = await runTurnToDone(testHost.client, sessionId, third);
    const rows = await messagesOf(sessionId);
    const notices = rows.filter((row) => row.noticeKind === 'outside_changes');
    assert.equal(notices.length, 1, 'one notice of what grew outside');
    const [notice] = notices as [MessageView];
    assert.match(noticeText(notice), /› \[case:\d+\] TERMINAL-TWO what else/);
    assert.match(noticeText(notice), /TERMINAL-TWO-ANSWER then docs/);
    assert.doesNotMatch(noticeText(notice), /OUTRIGGER-ONE/, 'Outrigger’s own turn is not shown as outside');
    const prompt = rows.find((row) => row.turnId === turn.turnId && row.role === 'user');
    assert.ok(prompt !== undefined && notice.position < prompt.position, 'the notice comes before the next turn');

    const asked = conversationOf('OUTRIGGER-THREE');
    assert.ok(
      asked.includes('TERMINAL-TWO-ANSWER'),
      'the next Outrigger turn’s Claude Code has read the terminal turn',
    );
    assert.ok(asked.includes('OUTRIGGER-ONE-ANSWER'));

    // Nothing grew outside since: the next turn shows no second notice, and a reload reads the same one.
    const fourth = cases.prompt('OUTRIGGER-FOUR done?', { prompt: text('OUTRIGGER-FOUR-ANSWER yes.') });
    await runTurnToDone(testHost.client, sessionId, fourth);
    await testHost.restart();
    const reloaded = (await messagesOf(sessionId)).filter((row) => row.noticeKind === 'outside_changes');
    assert.deepEqual(
      reloaded.map((row) => [row.id, noticeText(row)]),
      [[notice.id, noticeText(notice)]],
    );
    const fifth = cases.prompt('OUTRIGGER-FIVE after a restart', { prompt: text('OUTRIGGER-FIVE-ANSWER fine.') });
    await runTurnToDone(testHost.client, sessionId, fifth);
    const afterRestart = (await messagesOf(sessionId)).filter((row) => row.noticeKind === 'outside_changes');
    assert.equal(afterRestart.length, 1, 'a restart does not show the same messages again');
  } finally {
    await testHost.client.call('closeSession', { params: { id: sessionId } }).catch(() => undefined);
  }
});

test('continue over HTTP: the token, the id, an unknown session and a directory that is gone', {
  timeout: 120_000,
}, async () => {
  const post = (claudeSessionId: string, token: string | undefined, body: unknown = { mode: 'resume' }) =>
    fetch(`${testHost.host.baseUrl}/api/history/${claudeSessionId}/continue`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      body: JSON.stringify(body),
    });
  const codeOf = async (response: Response) => ((await response.json()) as { error: { code: string } }).error.code;
  const unknown = randomUUID();

  const anonymous = await post(unknown, undefined);
  assert.equal(anonymous.status, 401);
  const { token } = testHost.host;
  for (const id of ['not-a-uuid', '..%2F..%2Fetc', `${unknown}x`]) {
    const response = await post(id, token);
    assert.equal(response.status, 400, id);
    assert.equal(await codeOf(response), 'validation_failed');
  }
  const badBody = await post(unknown, token, { mode: 'steal' });
  assert.equal(await codeOf(badBody), 'validation_failed');
  const missing = await post(unknown, token);
  assert.equal(missing.status, 404);
  assert.equal(await codeOf(missing), 'not_found');

  const gone = join(testHost.cwd, 'gone soon');
  await mkdir(gone);
  const claudeSessionId = randomUUID();
  const prompt = cases.prompt('GONE-DIR hello', { prompt: text('GONE-DIR-ANSWER hi.') });
  const ran = await runInTerminal(`cd '${gone}' && claude --session-id ${claudeSessionId} -p '${prompt}'`, {
    ...testHost.home.env,
  });
  assert.equal(ran.code, 0, ran.output);
  await rm(gone, { recursive: true });
  const refused = await post(claudeSessionId, token, { mode: 'fork' });
  assert.equal(refused.status, 400);
  const body = (await refused.json()) as { error: { code: string; message: string } };
  assert.equal(body.error.code, 'validation_failed');
  assert.match(body.error.message, /no longer exists/);
  assert.match(body.error.message, /gone soon/);
});

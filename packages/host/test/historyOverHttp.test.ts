import assert from 'node:assert/strict';
import { mkdir, readFile, realpath } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type HistoryList, type HistoryTranscript, readSseFrames } from '@outrigger/host-api';
import { writeTranscript } from '../src/history/testing/generatedHistory.ts';
import { bashCall, caseScripts, text } from '../src/sessions/testing/scriptedModel.ts';
import { runTurnAllowing } from './harness/sseReader.ts';
import { startTestHost, type TestHost } from './harness/testHost.ts';

/*
 * Issue 19, the history's reads, with the REAL host, sidecar and Claude Code against mock-anthropic: the
 * transcript Claude Code wrote for a session (a text turn and a Bash call) is listed with the fields Claude
 * Code recorded and read as rows; generated terminal sessions inside and outside the allowed roots; the three
 * routes' guards (token, a non-UUID id, an unknown one); and `history_changed` on a new transcript.
 */

let testHost: TestHost;
const cases = caseScripts();
/** The allowed root holds the test home (a temp dir); a transcript's directory need not exist to be outside it. */
const outside = '/outrigger-history-test-elsewhere/project';

before(async () => {
  testHost = await startTestHost({ rules: [cases.rule], allowRoots: [await realpath(tmpdir())] });
});
after(async () => {
  await testHost?.close();
});

/** `withToken: false`: as a client that has none. */
async function fetchRoute(path: string, withToken = true): Promise<Response> {
  return fetch(`${testHost.host.baseUrl}${path}`, {
    headers: withToken ? { authorization: `Bearer ${testHost.host.token}` } : {},
  });
}

async function listUntil(has: (list: HistoryList) => boolean): Promise<HistoryList> {
  for (;;) {
    const list = await testHost.client.call('listHistory');
    if (has(list)) return list;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('a session Claude Code ran for Outrigger is listed with its fields and read as rows', {
  timeout: 120_000,
}, async () => {
  const cwd = testHost.cwd;
  const created = await testHost.client.call('createSession', { body: { cwd, title: 'history source' } });
  const first = cases.prompt('say hello', { prompt: text('Hello from the history.') });
  await runTurnAllowing(testHost.client, created.id, first);
  const second = cases.prompt('run the tests', {
    prompt: bashCall('echo history-tool-output'),
    afterTool: () => text('The command printed its line.'),
  });
  await runTurnAllowing(testHost.client, created.id, second);
  const claudeSessionId = created.providerSessionId;

  const list = await listUntil((each) =>
    each.projects.some((project) =>
      project.sessions.some((session) => session.claudeSessionId === claudeSessionId && session.messageCount >= 6),
    ),
  );
  assert.equal(list.configDir, testHost.home.configDir);
  const project = list.projects.find((each) => each.cwd === cwd);
  assert.ok(project?.cwdExists);
  const session = project.sessions.find((each) => each.claudeSessionId === claudeSessionId)!;
  assert.equal(session.firstPrompt, first);
  // user, assistant | user, assistant tool_use, user tool_result, assistant
  assert.equal(session.messageCount, 6);
  assert.equal(session.outriggerSessionId, created.id);
  assert.equal(session.recentlyActive, true);
  assert.equal(session.cwdExists, true);
  assert.ok(session.bytes > 0 && session.lastActivityAt > 0);
  assert.ok(session.createdAt !== null && session.createdAt <= session.lastActivityAt);
  assert.equal(typeof session.title, 'string');

  const transcript: HistoryTranscript = await testHost.client.call('getHistoryMessages', {
    params: { claudeSessionId },
  });
  assert.equal(transcript.session.claudeSessionId, claudeSessionId);
  assert.equal(transcript.page.hasMore, false);
  assert.equal(transcript.totalRows, transcript.page.messages.length);
  const json = JSON.stringify(transcript.page.messages);
  assert.ok(json.includes('Hello from the history.'));
  assert.ok(json.includes('history-tool-output'), 'the Bash call is there with its result');
  const found = await testHost.client.call('listHistory', { query: { q: 'SAY HELLO' } });
  assert.deepEqual(
    found.projects.flatMap((each) => each.sessions.map((one) => one.claudeSessionId)),
    [claudeSessionId],
  );
});

test('the history routes: token, ids, roots, and history_changed on a new transcript', {
  timeout: 60_000,
}, async () => {
  const hidden = await writeTranscript(testHost.home.configDir, { cwd: outside, messages: 4 });
  const shownCwd = join(testHost.home.root, 'terminal-project');
  await mkdir(shownCwd);
  const shown = await writeTranscript(testHost.home.configDir, { cwd: shownCwd, messages: 4 });

  assert.equal((await fetchRoute('/api/history', false)).status, 401);
  assert.equal((await fetchRoute(`/api/history/${shown.sessionId}/messages`, false)).status, 401);
  assert.equal((await fetchRoute('/api/history/events', false)).status, 401);

  const list = await listUntil((each) =>
    each.projects.some((project) => project.sessions.some((session) => session.claudeSessionId === shown.sessionId)),
  );
  assert.ok(
    list.projects.every((project) => project.sessions.every((one) => one.claudeSessionId !== hidden.sessionId)),
  );
  assert.equal(list.hiddenOutsideRoots, 1);

  const badId = await fetchRoute('/api/history/not-a-session/messages');
  assert.equal(badId.status, 400);
  assert.equal(((await badId.json()) as { error: { code: string } }).error.code, 'validation_failed');
  // Attack: the id names a file, so every spelling of a path in it is refused on the decoded value.
  for (const spelling of [
    encodeURIComponent('../../etc'),
    '%2e%2e%2f%2e%2e%2fetc',
    '..%2F..%2Fetc%2Fpasswd',
    '%252e%252e%252fetc',
    `${shown.sessionId}%2F..`,
    `${shown.sessionId}%00`,
    `${shown.sessionId}.jsonl`,
  ]) {
    const refused = await fetchRoute(`/api/history/${spelling}/messages`);
    assert.ok([400, 404].includes(refused.status), `${spelling}: ${refused.status}`);
    assert.notEqual(refused.status, 200);
  }
  const transcriptBefore = await readFile(shown.path);
  const unknown = await fetchRoute('/api/history/33333333-3333-4333-8333-333333333333/messages');
  assert.equal(unknown.status, 404);
  assert.equal(((await unknown.json()) as { error: { code: string } }).error.code, 'not_found');
  const outsideRead = await fetchRoute(`/api/history/${hidden.sessionId}/messages`);
  assert.equal(outsideRead.status, 404, 'a session outside the roots is not readable');
  assert.equal((await fetchRoute('/api/history?nope=1')).status, 400);
  assert.equal((await fetchRoute('/api/history/events?nope=1')).status, 400);

  const page = await testHost.client.call('getHistoryMessages', {
    params: { claudeSessionId: shown.sessionId },
    query: { limit: 2 },
  });
  assert.equal(page.page.messages.length, 2);
  assert.equal(page.page.hasMore, true);
  assert.deepEqual(await readFile(shown.path), transcriptBefore, 'listing and reading never write the transcript');

  // history_changed: not replayed, so the stream is open before the new transcript is written.
  const abort = new AbortController();
  const response = await testHost.client.raw('historyEvents', {
    headers: { accept: 'text/event-stream' },
    signal: abort.signal,
  });
  assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const frames = readSseFrames(response.body!, abort.signal);
  const added = writeTranscript(testHost.home.configDir, { cwd: shownCwd, messages: 2 });
  let newId: string | undefined;
  for await (const frame of frames) {
    if (frame.event !== 'history_changed') continue;
    newId ??= (await added).sessionId;
    const data = frame.data as { revision: number; claudeSessionIds: string[] };
    assert.equal(frame.id, undefined, 'history events carry no id: they are not replayed');
    if (data.claudeSessionIds.includes(newId)) break;
  }
  abort.abort();
  const later = await testHost.client.call('listHistory');
  assert.ok(later.projects.some((project) => project.sessions.some((session) => session.claudeSessionId === newId)));
});

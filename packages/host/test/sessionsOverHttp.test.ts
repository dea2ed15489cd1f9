import assert from 'node:assert/strict';
import { access, mkdir, readdir, realpath, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { HostApiError, type HostEvent } from '@outrigger/host-api';
import { caseScripts, slowText, text } from '../src/sessions/testing/scriptedModel.ts';
import { readEventsUntil, runTurnToDone } from './harness/sseReader.ts';
import { startTestHost, type TestHost } from './harness/testHost.ts';

/*
 * Managing sessions (issue 17) over HTTP: the real host, sidecar and Claude Code against mock-anthropic. A
 * session is created and runs a turn; search finds it by title and by prompt; it is archived (out of the
 * default list, in `archived=only`), restored, and deleted (its rows, events and checkpoints gone, Claude
 * Code's own transcript left where it is). A running session can be neither archived nor deleted; a closed
 * one takes no tasks; the working-directory routes answer from the same host.
 */

const cases = caseScripts();
let testHost: TestHost;
let root: string;

before(async () => {
  root = await realpath(tmpdir());
  testHost = await startTestHost({ rules: [cases.rule], allowRoots: [root] });
});
after(async () => {
  await testHost?.close();
});

const codeOf = (expected: string) => (error: unknown) => {
  assert.ok(error instanceof HostApiError, String(error));
  assert.equal(error.code, expected, error.message);
  return true;
};

async function listIds(archived?: 'exclude' | 'include' | 'only'): Promise<string[]> {
  const list = await testHost.client.call('listSessions', {
    query: { includeClosed: '1', ...(archived === undefined ? {} : { archived }) },
  });
  return list.sessions.map((session) => session.id);
}

/** The host stream after `after`, as events, up to the first that `until` holds for. */
async function readHostEventsUntil(
  client: TestHost['client'],
  after: number,
  until: (event: HostEvent) => boolean,
): Promise<HostEvent[]> {
  const asEvent = (frame: { event?: string; data: unknown }) => ({ type: frame.event, data: frame.data }) as HostEvent;
  const frames = await readEventsUntil(client, undefined, (frame) => until(asEvent(frame)), { lastEventId: after });
  return frames.map(asEvent);
}

async function findFiles(dir: string, name: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (at: string) => {
    for (const entry of await readdir(at, { withFileTypes: true }).catch(() => [])) {
      if (entry.isDirectory()) await walk(join(at, entry.name));
      else if (entry.name === name) found.push(join(at, entry.name));
    }
  };
  await walk(dir);
  return found;
}

test('a real session is searched, archived, restored and deleted; Claude Code’s transcript stays', async () => {
  const { client } = testHost;
  const created = await client.call('createSession', { body: { cwd: testHost.cwd, title: 'Parser work' } });
  const { id } = created;
  assert.equal(created.session.archivedAt, null);
  const prompt = cases.prompt('please look at the flaky websocket test', { prompt: text('Looked at it.') });
  const { frames } = await runTurnToDone(client, id, prompt);
  assert.equal((frames.at(-1)?.data as { outcome?: string } | undefined)?.outcome, 'completed');
  const { providerSessionId } = (await client.call('getSession', { params: { id } })).session;

  // Search: by prompt (cut around the match) and by title.
  const byPrompt = await client.call('searchSessions', { query: { q: 'WEBSOCKET' } });
  assert.deepEqual(
    byPrompt.results.map((hit) => [hit.session.id, hit.match.field]),
    [[id, 'prompt']],
  );
  assert.match(byPrompt.results[0]!.match.text, /flaky websocket test/);
  const byTitle = await client.call('searchSessions', { query: { q: 'parser' } });
  assert.deepEqual(
    byTitle.results.map((hit) => [hit.session.id, hit.match.field]),
    [[id, 'title']],
  );

  // Archive: out of the default list, announced on the host stream, in `archived=only`; restore brings it back.
  const { lastSeq } = await client.call('listSessions', {});
  const archived = await client.call('archiveSession', { params: { id }, body: { archived: true } });
  assert.equal(typeof archived.archivedAt, 'number');
  const events = await readHostEventsUntil(
    client,
    lastSeq,
    (event) => event.type === 'session' && event.data.session.id === id && event.data.session.archivedAt !== null,
  );
  assert.ok(events.length > 0);
  assert.ok(!(await listIds()).includes(id), 'hidden from the default list');
  assert.deepEqual(await listIds('only'), [id]);
  assert.equal((await client.call('getSession', { params: { id } })).session.archivedAt, archived.archivedAt);
  const restored = await client.call('archiveSession', { params: { id }, body: { archived: false } });
  assert.equal(restored.archivedAt, null);
  assert.ok((await listIds()).includes(id));

  // Delete: the checkpoints go, the rows and events go, Claude Code's transcript stays.
  const checkpoints = join(testHost.dataDir, 'checkpoints', `${id}.git`);
  await access(checkpoints);
  const transcripts = await findFiles(join(testHost.home.configDir, 'projects'), `${providerSessionId}.jsonl`);
  assert.equal(transcripts.length, 1, 'Claude Code wrote its transcript');
  const beforeDelete = (await client.call('listSessions', {})).lastSeq;
  const deleted = await client.call('deleteSession', { params: { id }, body: {} });
  assert.deepEqual(deleted, { sessionId: id, claudeTranscriptIds: [providerSessionId], checkpointsRemoved: true });
  await assert.rejects(access(checkpoints), 'the shadow repository is removed');
  await access(transcripts[0]!);
  await assert.rejects(client.call('getSession', { params: { id } }), codeOf('not_found'));
  await assert.rejects(client.call('postTurn', { params: { id }, body: { prompt: 'again' } }), codeOf('not_found'));
  assert.ok(!(await listIds('include')).includes(id));
  assert.deepEqual((await client.call('searchSessions', { query: { q: 'websocket' } })).results, []);
  const deletedEvent = (
    await readHostEventsUntil(client, beforeDelete, (event) => event.type === 'session_deleted')
  ).at(-1);
  assert.equal(deletedEvent?.type === 'session_deleted' ? deletedEvent.data.session_id : undefined, id);
  const replay = await readHostEventsUntil(client, 0, (event) => event.type === 'session_deleted');
  const about = replay.filter((event: HostEvent) => JSON.stringify(event.data).includes(id));
  assert.deepEqual(
    about.map((event) => event.type),
    ['session_deleted'],
    'a replay of the host stream holds nothing of the deleted session but its deletion',
  );
  await assert.rejects(client.call('deleteSession', { params: { id }, body: {} }), codeOf('not_found'));
});

test('a running session is neither archived nor deleted; a closed one takes no tasks and no turns', async () => {
  const { client } = testHost;
  const { id } = await client.call('createSession', { body: { cwd: testHost.cwd, title: 'Busy' } });
  const { turnId } = await client.call('postTurn', {
    params: { id },
    body: { prompt: cases.prompt('talk for a while', { prompt: slowText(40) }) },
  });
  for (let waited = 0; ; waited += 50) {
    const { session } = await client.call('getSession', { params: { id } });
    if (session.status === 'running') break;
    assert.ok(waited < 30_000, 'the turn started');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await assert.rejects(client.call('archiveSession', { params: { id }, body: { archived: true } }), (error) => {
    codeOf('conflict')(error);
    assert.match((error as Error).message, /running; stop it/);
    return true;
  });
  await assert.rejects(client.call('deleteSession', { params: { id }, body: {} }), codeOf('conflict'));
  await client.call('cancelTurn', { params: { id, turnId }, body: {} });
  assert.ok((await listIds()).includes(id), 'still there, not archived');

  await client.call('closeSession', { params: { id } });
  await assert.rejects(
    client.call('createTask', { body: { session_id: id, title: 'one more thing' } }),
    (error: unknown) => {
      codeOf('session_closed')(error);
      assert.match((error as Error).message, /closed: it takes no new tasks/);
      return true;
    },
  );
  await assert.rejects(
    client.call('postTurn', { params: { id }, body: { prompt: 'hello' } }),
    codeOf('session_closed'),
  );
  // A closed, idle session can be archived and deleted.
  await client.call('archiveSession', { params: { id }, body: { archived: true } });
  const deleted = await client.call('deleteSession', { params: { id }, body: {} });
  assert.equal(deleted.sessionId, id);
});

test('working directories: ~ and the label in errors, recent directories, completion only inside the roots', async () => {
  const { client } = testHost;
  const missing = join(testHost.cwd, 'no-such-dir');
  await assert.rejects(client.call('createSession', { body: { cwd: missing } }), (error: unknown) => {
    codeOf('validation_failed')(error);
    assert.equal((error as Error).message, `Working directory: ${missing} does not exist`);
    return true;
  });
  await assert.rejects(client.call('createSession', { body: { cwd: '/' } }), (error: unknown) => {
    codeOf('forbidden')(error);
    assert.match((error as Error).message, /^Working directory: \/ is outside the directories this host may use/);
    return true;
  });

  await client.call('createSession', { body: { cwd: testHost.cwd, title: 'Here' } });
  const recent = await client.call('recentDirectories', {});
  assert.equal(recent.directories[0]?.path, testHost.cwd, 'the last sessions ran here');
  assert.equal(new Set(recent.directories.map((entry) => entry.path)).size, recent.directories.length);

  await mkdir(join(testHost.cwd, 'alpha', 'inner'), { recursive: true });
  await mkdir(join(testHost.cwd, 'alphabet'), { recursive: true });
  await symlink('/etc', join(testHost.cwd, 'al-escape'));
  const completion = await client.call('completeDirectory', { query: { prefix: `${testHost.cwd}/al` } });
  assert.deepEqual(
    completion.entries.map((entry) => entry.path),
    [`${testHost.cwd}/alpha/`, `${testHost.cwd}/alphabet/`],
    'the link to /etc is neither listed nor followed',
  );
  await assert.rejects(
    client.call('completeDirectory', { query: { prefix: `${testHost.cwd}/al-escape/` } }),
    codeOf('forbidden'),
  );
  await assert.rejects(
    client.call('completeDirectory', { query: { prefix: `${testHost.cwd}/../../../../etc/` } }),
    codeOf('forbidden'),
  );
  await assert.rejects(
    client.call('completeDirectory', { query: { prefix: 'relative/' } }),
    codeOf('validation_failed'),
  );
});

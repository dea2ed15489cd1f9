import assert from 'node:assert/strict';
import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { HostApiError } from '@outrigger/host-api';
import type { MessagesRequestView } from '@outrigger/mock-anthropic';
import { runTurnToDone } from './harness/sseReader.ts';
import { startTestHost, type TestHost } from './harness/testHost.ts';

/*
 * What the composer and the model picker ask of the host (issue 17), over HTTP, with the real SDK, the real
 * Claude Code and mock-anthropic: the slash commands Claude Code reports (built-in and the project's own)
 * reach `GET /api/sessions/:id/commands` with their descriptions; a model Claude Code rejects is a clear
 * `validation_failed` at `model`, at creation and at a change; the models it reported are offered for new
 * sessions; `@` completion never names a path outside the session's directory.
 */

/** Like the Anthropic API: a model it does not have is a 404 `not_found_error` naming it. */
function modelRule(request: MessagesRequestView) {
  const model = (request.body as { model?: unknown }).model;
  if (typeof model === 'string' && model.startsWith('gpt')) {
    return { error: { status: 404, type: 'not_found_error', message: `model: ${model}` } };
  }
  return { content: [{ type: 'text' as const, text: 'ok' }] };
}

let testHost: TestHost;
let project: string;
let outside: string;

before(async () => {
  testHost = await startTestHost({ rules: [modelRule] });
  project = join(testHost.cwd, 'project');
  outside = join(testHost.cwd, 'outside');
  await mkdir(join(project, '.claude', 'commands'), { recursive: true });
  await mkdir(join(project, 'src'), { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(
    join(project, '.claude', 'commands', 'deploy.md'),
    '---\ndescription: Deploy the app\nargument-hint: [environment]\n---\nDeploy to $ARGUMENTS\n',
  );
  await writeFile(join(project, 'src', 'main.ts'), '');
  await writeFile(join(project, '.gitignore'), 'dist/\n');
  await mkdir(join(project, 'dist'));
  await writeFile(join(project, 'dist', 'bundle.js'), '');
  await writeFile(join(outside, 'secret.txt'), 'not the session’s');
  await symlink(join(outside, 'secret.txt'), join(project, 'secret-link.txt'));
  await symlink(outside, join(project, 'outside-dir'));
});
after(async () => {
  await testHost?.close();
});

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('the slash commands the real Claude Code reports reach the API, the project’s own with its description and hint', async () => {
  const { client } = testHost;
  const created = await client.call('createSession', { body: { cwd: project, title: 'commands' } });
  const { commands } = await eventually(
    () => client.call('listCommands', { params: { id: created.id } }),
    (answer) => answer.commands.some((command) => command.name === 'deploy'),
    'the project command',
  );
  const deploy = commands.find((command) => command.name === 'deploy');
  assert.match(deploy?.description ?? '', /Deploy the app/);
  assert.equal(deploy?.input?.hint, 'environment');
  const compact = commands.find((command) => command.name === 'compact');
  assert.ok(compact !== undefined && compact.description !== '', 'a built-in command, described');
  assert.ok(!commands.some((command) => command.name === 'login'), 'terminal-only commands are left out');

  // The models Claude Code reported are offered for the next session, with their descriptions.
  const catalogue = await client.call('listModels', {});
  assert.ok(
    catalogue.models.some((model) => model.value === 'default'),
    JSON.stringify(catalogue),
  );
  assert.ok(catalogue.models.every((model) => model.name !== ''));
  assert.ok(catalogue.models.some((model) => (model.description ?? '') !== ''));
  assert.equal(typeof catalogue.reportedAt, 'number');

  // Kept across a restart of the host (durable, not only in memory).
  await testHost.restart();
  const again = await testHost.client.call('listCommands', { params: { id: created.id } });
  assert.ok(again.commands.some((command) => command.name === 'deploy'));
});

test('a model Claude Code rejects is a clear validation_failed at `model`, at creation and at a change', async () => {
  const { client } = testHost;
  const refused = await client.call('createSession', { body: { cwd: project, model: 'gpt-4o' } }).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(refused instanceof HostApiError, String(refused));
  assert.equal(refused.code, 'validation_failed');
  assert.match(refused.message, /Claude Code rejected the model "gpt-4o"/);
  assert.ok(refused.details.some((detail) => detail.path === 'model'));
  const listed = await client.call('listSessions', {});
  assert.ok(!listed.sessions.some((session) => session.model === 'gpt-4o'), 'no session was kept with it');

  const created = await client.call('createSession', { body: { cwd: project, title: 'model change' } });
  const change = await client.call('updateSettings', { params: { id: created.id }, body: { model: 'gpt-4o' } }).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(change instanceof HostApiError, String(change));
  assert.equal(change.code, 'validation_failed');
  assert.match(change.message, /Claude Code rejected the model "gpt-4o"/);
  assert.ok(change.details.some((detail) => detail.path === 'model'));
  const snapshot = await client.call('getSession', { params: { id: created.id } });
  assert.equal(snapshot.session.settings.model, 'default', 'the selection stays as it was');

  const accepted = await client.call('updateSettings', { params: { id: created.id }, body: { model: 'sonnet' } });
  assert.equal(accepted.settings.model, 'sonnet');
});

test('file completion never leaves the session’s directory: traversal, absolute paths, encodings and links out', async () => {
  const { client } = testHost;
  const created = await client.call('createSession', { body: { cwd: project, title: 'files' } });
  const all = await client.call('completeFiles', { params: { id: created.id }, query: {} });
  const paths = all.entries.map((entry) => entry.path);
  assert.ok(paths.includes('src/main.ts'), JSON.stringify(paths));
  assert.ok(paths.includes('src/'));
  assert.ok(!paths.some((path) => path.startsWith('dist')), '.gitignore is honoured');
  const realProject = await realpath(project);
  for (const prefix of [
    '../',
    '../outside/secret.txt',
    '/etc/passwd',
    '%2e%2e%2f',
    '..\\..',
    'outside-dir/',
    'secret',
  ]) {
    const answer = await client.call('completeFiles', { params: { id: created.id }, query: { prefix } });
    for (const entry of answer.entries) {
      const real = await realpath(join(project, entry.path));
      assert.ok(real.startsWith(`${realProject}/`), `${prefix} offered ${entry.path} (${real})`);
    }
    assert.ok(!answer.entries.some((entry) => entry.path.includes('secret') || entry.path.includes('outside')), prefix);
  }
  // Raw traversal in the query string reaches the route as it is, and is still only a filter.
  const response = await fetch(`${testHost.host.baseUrl}/api/sessions/${created.id}/files?prefix=..%2F..%2F..%2Fetc`, {
    headers: { authorization: `Bearer ${testHost.host.token}` },
  });
  assert.equal(response.status, 200);
  assert.deepEqual(((await response.json()) as { entries: unknown[] }).entries, []);
  const unknown = await client.call('completeFiles', { params: { id: 'no-such-session' }, query: {} }).then(
    () => undefined,
    (error: unknown) => error,
  );
  assert.ok(unknown instanceof HostApiError && unknown.code === 'not_found');
});

test('the context window measured after a turn stays in every usage the next turn reports (the meter keeps it)', async () => {
  const { client } = testHost;
  const created = await client.call('createSession', { body: { cwd: project, title: 'meter' } });
  await runTurnToDone(client, created.id, 'first');
  const measured = await eventually(
    () => client.call('getSession', { params: { id: created.id } }),
    (snapshot) => snapshot.session.usage.contextWindow !== null,
    'the context window after the first turn',
  );
  const { frames } = await runTurnToDone(client, created.id, 'second');
  const usages = frames
    .filter((frame) => frame.event === 'usage')
    .map((frame) => frame.data as { usage: { contextWindow: unknown } });
  assert.ok(usages.length > 0);
  for (const usage of usages) {
    assert.notEqual(usage.usage.contextWindow, null, `a usage of the second turn blanked the window: ${frame(usage)}`);
  }
  assert.deepEqual(usages[0].usage.contextWindow, measured.session.usage.contextWindow);
});

const frame = (value: unknown) => JSON.stringify(value).slice(0, 300);

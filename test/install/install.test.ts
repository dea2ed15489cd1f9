import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { createClaudeTestHome } from '@outrigger/mock-anthropic/testing';
import {
  bashCall,
  slowText,
  startScriptedModel,
} from '../../packages/claude-sdk-sidecar/test/control/scriptedModel.ts';
import { assertNoProcessesLeft } from '../../packages/host/test/harness/processes.ts';
import { credentialFreeEnv, spawnServe } from '../../packages/host/test/harness/serveChild.ts';
import { packRelease, type ReleaseTarball } from '../../release/packRelease.ts';
import { tarballProblems } from '../../release/tarballAudit.ts';
import { SeedReadmeClient } from './seedReadmeClient.ts';

/*
 * The release as a user gets it: every public package packed by `npm pack`, installed from the tarballs into
 * directories outside the repository (third-party dependencies from the registry), then used only through what
 * it installed: `outrigger` from a global prefix, the sidecar's bin and the libraries from a plain project.
 */

const run = promisify(execFile);
const NODE_DIR = dirname(process.execPath);
let root: string;
let tarballs: ReleaseTarball[];
let globalBin: string;
let consumer: string;

/** A machine with no Claude credential and its own home: `serve` picks the demo model, data lands under XDG. */
function userEnv(home: string): Record<string, string> {
  return {
    ...credentialFreeEnv(),
    HOME: home,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    OUTRIGGER_DATA_DIR: '',
    PATH: `${NODE_DIR}:${process.env.PATH ?? ''}`,
  };
}

function tarballOf(name: string): string {
  const found = tarballs.find((tarball) => tarball.name === name);
  assert.ok(found, `${name} was packed`);
  return found.file;
}

async function npmInstall(cwd: string, args: string[]): Promise<void> {
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...args], {
    cwd,
    env: { ...process.env, PATH: `${NODE_DIR}:${process.env.PATH ?? ''}` },
    maxBuffer: 16 * 1024 * 1024,
  });
}

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'outrigger-install-'));
  tarballs = await packRelease(join(root, 'tarballs'));
  const prefix = join(root, 'global');
  await npmInstall(root, ['--global', '--prefix', prefix, tarballOf('outrigger')]);
  globalBin = join(prefix, 'bin', 'outrigger');
  consumer = join(root, 'consumer');
  await mkdir(consumer);
  await writeFile(join(consumer, 'package.json'), '{"name":"consumer","private":true,"type":"module"}\n');
  await npmInstall(consumer, [
    tarballOf('@outrigger/claude-sdk-sidecar'),
    tarballOf('@outrigger/protocol'),
    tarballOf('@outrigger/host-api'),
  ]);
});

after(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});

test('the tarballs hold no tests, data or absolute-path maps, and stay within their size budgets', async (t) => {
  const names = tarballs.map((tarball) => tarball.name).sort();
  assert.deepEqual(names, ['@outrigger/claude-sdk-sidecar', '@outrigger/host-api', '@outrigger/protocol', 'outrigger']);
  for (const tarball of tarballs) {
    const unpacked = join(root, 'unpacked', tarball.name);
    await mkdir(unpacked, { recursive: true });
    await run('tar', ['xzf', tarball.file, '-C', unpacked]);
    assert.deepEqual(
      tarballProblems(tarball, (path) => readFileSync(join(unpacked, 'package', path), 'utf8')),
      [],
    );
    const manifest = JSON.parse(readFileSync(join(unpacked, 'package', 'package.json'), 'utf8'));
    assert.equal(manifest.scripts, undefined, `${tarball.name}: nothing runs at install time`);
    assert.equal(manifest.devDependencies, undefined, `${tarball.name}: no dev dependencies`);
    t.diagnostic(
      `${tarball.name}: ${tarball.bytes} bytes packed, ${tarball.unpackedBytes} unpacked, ${tarball.files.length} files`,
    );
  }
});

test('installed `outrigger`: --version, serve from an empty directory, one demo turn over HTTP, the typed client, doctor', async () => {
  const home = join(root, 'home');
  const project = join(root, 'some-project');
  await mkdir(project, { recursive: true });
  const env = userEnv(home);
  const version = await run(globalBin, ['--version'], { env, cwd: project });
  const expected = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
  assert.equal(version.stdout, `outrigger ${expected}\n`);

  const mark = `install-${process.pid}`;
  const serve = await spawnServe({ executable: globalBin, args: ['--port', '0'], env, cwd: project, mark });
  try {
    assert.match(serve.output(), /DEMO MODEL/);
    const dataDir = join(home, '.local', 'share', 'outrigger');
    assert.ok(serve.output().includes(`Data in ${dataDir}`), serve.output());
    const { baseUrl: base, token } = serve;
    const api = async (path: string, init: RequestInit = {}) => {
      const response = await fetch(`${base}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      });
      // biome-ignore lint/suspicious/noExplicitAny: the host's JSON, read as an outside client reads it
      const body: any = await response.json().catch(() => undefined);
      return { status: response.status, body };
    };
    const page = await fetch(serve.url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<div id="root">|<script/);

    const info = await api('/api/info');
    assert.equal(info.body.version, expected, '/api/info agrees with --version');
    assert.equal(info.body.defaultCwd, project, 'a new session starts where serve was started');
    const created = await api('/api/sessions', { method: 'POST', body: JSON.stringify({ cwd: info.body.defaultCwd }) });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const sessionId: string = created.body.id;
    const posted = await api(`/api/sessions/${sessionId}/turns`, {
      method: 'POST',
      body: JSON.stringify({ prompt: 'hello' }),
    });
    assert.equal(posted.status, 202, JSON.stringify(posted.body));
    const answerBy = Date.now() + 90_000;
    for (;;) {
      const messages = await api(`/api/sessions/${sessionId}/messages`);
      if (/Outrigger demo model/.test(JSON.stringify(messages.body))) break;
      if (Date.now() > answerBy) assert.fail(`no demo answer: ${JSON.stringify(messages.body)}\n${serve.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }

    // The libraries from a plain ESM script: validate a protocol line, call the running host with the typed client.
    const script = join(consumer, 'use-libraries.mjs');
    await writeFile(
      script,
      `import { parseRequestLine } from '@outrigger/protocol';
import { HostClient, hostRoutes } from '@outrigger/host-api';
const line = parseRequestLine(JSON.stringify({ version: 10, id: 'r1', type: 'close', payload: { agentSessionId: 's1' } }));
const client = new HostClient({ baseUrl: process.argv[2], token: process.argv[3] });
const info = hostRoutes.info.response.parse(await client.call('info'));
const sessions = await client.call('listSessions');
console.log(JSON.stringify({ line: line.kind, version: info.version, sessions: sessions.sessions.length }));
`,
    );
    const used = await run(process.execPath, [script, base, token], { cwd: consumer });
    assert.deepEqual(JSON.parse(used.stdout), { line: 'request', version: expected, sessions: 1 });

    const doctor = await run(globalBin, ['doctor', '--port', '0'], { env, cwd: project }).catch(
      (error: { stdout: string; code: number }) => error,
    );
    for (const check of ['node', 'claude code', 'data dir', 'data mode', 'data write', 'port']) {
      assert.match(doctor.stdout, new RegExp(`^ok +${check} `, 'm'), `${check}:\n${doctor.stdout}`);
    }
    assert.match(doctor.stdout, /^note +credential +none found, so the offline demo model answers/m);
    assert.doesNotMatch(doctor.stdout, /^FAIL/m);
  } finally {
    await serve.stop();
  }
  await assertNoProcessesLeft(mark);
});

test('the installed sidecar bin, driven by a client that knows only the seed README: session, turn, approval, cancel', async () => {
  const model = await startScriptedModel();
  const home = await createClaudeTestHome({ baseUrl: model.url, env: { IS_SANDBOX: '1' } });
  const bin = join(consumer, 'node_modules', '.bin', 'claude-sdk-sidecar');
  assert.ok(existsSync(bin));
  const sidecar = new SeedReadmeClient(
    bin,
    [],
    { ...home.env, PATH: `${NODE_DIR}:${process.env.PATH ?? ''}` },
    home.cwd,
  );
  try {
    const started = await sidecar.request('start', {
      agentSessionId: 's1',
      cwd: home.cwd,
      permissionModeId: 'default',
    });
    assert.equal(started.type, 'ok', JSON.stringify(started));
    assert.equal(started.version, 10);

    const hello = model.prompt('Say hello.', {
      prompt: { content: [{ type: 'text', text: 'Hello from the tarball.' }] },
    });
    assert.equal((await sidecar.request('exec', { agentSessionId: 's1', turnId: 't1', prompt: hello })).type, 'ok');
    const first = await sidecar.waitFor(
      (line) => line.payload?.turnId === 't1' && line.type.startsWith('turn_'),
      'the end of t1',
    );
    assert.equal(first.type, 'turn_completed', JSON.stringify(first));

    const file = join(home.cwd, 'approved.txt');
    const approve = model.prompt('Create a file.', { prompt: bashCall(`touch ${file}`) });
    await sidecar.request('exec', { agentSessionId: 's1', turnId: 't2', prompt: approve });
    const asked = await sidecar.waitFor((line) => line.type === 'approval_requested', 'the approval request');
    const answered = await sidecar.request('submit_interactive', {
      agentSessionId: 's1',
      turnId: 't2',
      requestId: asked.payload?.requestId,
      action: 'allow',
      optionId: 'allow',
    });
    assert.equal(answered.payload?.disposition, 'answered', JSON.stringify(answered));
    const second = await sidecar.waitFor(
      (line) => line.payload?.turnId === 't2' && line.type.startsWith('turn_'),
      'the end of t2',
    );
    assert.equal(second.type, 'turn_completed', JSON.stringify(second));
    assert.ok(existsSync(file), 'the approved command ran');

    const slow = model.prompt('Stream a long answer.', { prompt: slowText(300) });
    await sidecar.request('exec', { agentSessionId: 's1', turnId: 't3', prompt: slow });
    await sidecar.waitFor(
      (line) => line.type === 'assistant_delta' && line.payload?.turnId === 't3',
      'streaming of t3',
    );
    const canceled = await sidecar.request('cancel', {
      agentSessionId: 's1',
      turnId: 't3',
      interruptTimeoutMs: 5000,
      drainTimeoutMs: 5000,
    });
    assert.equal(canceled.payload?.canceled, true, JSON.stringify(canceled));
    const terminals = sidecar.lines.filter((line) => line.payload?.turnId === 't3' && line.type.startsWith('turn_'));
    assert.deepEqual(
      terminals.map((line) => line.type),
      ['turn_canceled'],
    );
    assert.ok(sidecar.lines.every((line) => line.version === 10));
  } finally {
    assert.equal(await sidecar.end(), 0, sidecar.stderr);
    await home.cleanup();
    await model.close();
  }
});

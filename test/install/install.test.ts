import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
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
import { credentialFreeEnv, type ServeChild, spawnServe } from '../../packages/host/test/harness/serveChild.ts';
import { runTurnToDone } from '../../packages/host/test/harness/sseReader.ts';
import { isAtLeast, REQUIRED_NODE } from '../../release/launcher/nodeRequirement.ts';
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

/** Creates a session in `cwd`, runs `prompt` to its end, and asserts it completed with messages matching `answer`. */
async function answerOneTurn(serve: ServeChild, cwd: string, prompt: string, answer: RegExp): Promise<void> {
  const { id } = await serve.client.call('createSession', { body: { cwd } });
  const { frames } = await runTurnToDone(serve.client, id, prompt);
  assert.equal((frames.at(-1)?.data as { outcome?: string } | undefined)?.outcome, 'completed', serve.output());
  const page = await serve.client.call('listMessages', { params: { id } });
  assert.match(JSON.stringify(page.messages), answer);
}

/** Where an older Node usually is: Debian's package, and whatever `node` is first on PATH. */
const OLD_NODE_CANDIDATES = ['/usr/bin/node', '/usr/local/bin/node', 'node'];

function olderNode(): { path: string; version: string } | undefined {
  for (const path of OLD_NODE_CANDIDATES) {
    const probe = spawnSync(path, ['--version'], { encoding: 'utf8' });
    const version = probe.status === 0 ? probe.stdout.trim() : '';
    if (version !== '' && !isAtLeast(version, REQUIRED_NODE)) return { path, version: version.replace(/^v/, '') };
  }
  return undefined;
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
    const page = await fetch(serve.url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<div id="root">|<script/);

    const info = await serve.client.call('info');
    assert.equal(info.version, expected, '/api/info agrees with --version');
    assert.equal(info.defaultCwd, project, 'a new session starts where serve was started');
    await answerOneTurn(serve, project, 'hello', /Outrigger demo model/);

    // The history reads transcripts in the sidecar's worker thread, whose file the bundled host finds beside the
    // sidecar's entry: the demo session's own transcript is listed and read.
    let history = await serve.client.call('listHistory');
    for (let tries = 0; history.indexState === 'indexing' && tries < 100; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      history = await serve.client.call('listHistory');
    }
    const listed = history.projects.flatMap((each) => each.sessions).find((one) => one.outriggerSessionId !== null);
    assert.ok(listed, JSON.stringify(history));
    const read = await serve.client.call('getHistoryMessages', { params: { claudeSessionId: listed.claudeSessionId } });
    assert.match(JSON.stringify(read.page.messages), /Outrigger demo model/);

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
    const used = await run(process.execPath, [script, serve.baseUrl, serve.token], { cwd: consumer });
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

test('installed `outrigger` with a credential: doctor names where it was found (never its value), Claude Code answers', async () => {
  const model = await startScriptedModel();
  const home = await createClaudeTestHome({ baseUrl: model.url });
  const env = { ...home.env, PATH: `${NODE_DIR}:${home.env.PATH}` };
  const mark = `install-credential-${process.pid}`;
  try {
    const doctor = await run(globalBin, ['doctor', '--port', '0', '--data-dir', join(root, 'credential-data')], {
      env,
      cwd: home.cwd,
    });
    assert.match(doctor.stdout, /^ok +credential +Claude answers: .*ANTHROPIC_API_KEY/m, doctor.stdout);
    const key = home.env.ANTHROPIC_API_KEY;
    assert.ok(key, 'the test home carries a key');
    assert.ok(!doctor.stdout.includes(key), 'doctor never prints the credential');

    const serve = await spawnServe({
      executable: globalBin,
      args: ['--port', '0', '--data-dir', join(root, 'credential-data')],
      env,
      cwd: home.cwd,
      mark,
    });
    try {
      assert.doesNotMatch(serve.output(), /DEMO MODEL/);
      const prompt = model.prompt('Say hello.', {
        prompt: { content: [{ type: 'text', text: 'Hello through the installed host.' }] },
      });
      await answerOneTurn(serve, home.cwd, prompt, /Hello through the installed host\./);
    } finally {
      await serve.stop();
    }
    await assertNoProcessesLeft(mark);
  } finally {
    await home.cleanup();
    await model.close();
  }
});

test('installed `outrigger` on a Node older than it needs: one clear line and exit 1, no stack trace', async (t) => {
  const older = olderNode();
  if (older === undefined) {
    t.skip(`no Node older than ${REQUIRED_NODE} on this machine (${OLD_NODE_CANDIDATES.join(', ')})`);
    return;
  }
  const launcher = join(root, 'global', 'lib', 'node_modules', 'outrigger', 'dist', 'outrigger.js');
  const result = spawnSync(older.path, [launcher, '--version'], { encoding: 'utf8' });
  assert.equal(result.status, 1, result.stderr);
  assert.equal(result.stdout, '');
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, result.stderr);
  assert.match(lines[0] ?? '', new RegExp(`needs Node\\.js ${REQUIRED_NODE.replaceAll('.', '\\.')} or newer`));
  assert.ok(lines[0]?.includes(`this is Node.js ${older.version}`), lines[0]);
  assert.match(lines[0] ?? '', /https:\/\/nodejs\.org/);
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

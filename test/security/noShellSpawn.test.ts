import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { descendants, spawnSidecar } from '@outrigger/claude-sdk-sidecar/testing';
import { startMockAnthropic } from '@outrigger/mock-anthropic';
import { createClaudeTestHome } from '@outrigger/mock-anthropic/testing';
import {
  assertCleanExit,
  cleanUpChatProcess,
  demoChatEnv,
  spawnChat,
} from '../../bin/commands/chatProcessTestSupport.ts';
import { assertNoProcessesLeft, killMarkedProcesses } from '../../packages/host/test/harness/processes.ts';
import { spawnServe } from '../../packages/host/test/harness/serveChild.ts';
import { isDoneOf, readEventsUntil } from '../../packages/host/test/harness/sseReader.ts';
import {
  type ChildProcessCall,
  childProcessCalls,
  childProcessCallsInText,
  repositorySources,
} from './childProcessCalls.ts';
import { SPAWN_RECORD_ENV } from './spawnRecorder.preload.ts';

/*
 * No child is spawned through a shell (issue 11, security). Statically: every child_process call site of
 * the repository is read and none can start a shell, except the listed test harnesses that mean to (each
 * with its reason). At run time: child_process is wrapped in the processes themselves (a preload) while the
 * sidecar runs a real Claude Code turn with a Bash tool and while `outrigger chat` runs a turn, and every
 * child they started was started without a shell.
 */

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const PRELOAD = fileURLToPath(new URL('./spawnRecorder.preload.ts', import.meta.url));

/** Calls that start a shell on purpose, each with its reason; a stale entry fails too. */
const ALLOWED_SHELLS: readonly { file: string; program: string; reason: string }[] = [
  {
    file: 'packages/host/src/sessions/hostSession.test.ts',
    program: '/bin/sh',
    reason: 'stands in for a Bash tool: a shell in a process group of its own, as Claude Code runs one',
  },
  {
    file: 'packages/host/src/sidecar/processMarks.test.ts',
    program: '/bin/sh',
    reason: 'stands in for a Bash tool: a shell in a process group of its own, as Claude Code runs one',
  },
  {
    file: 'packages/protocol/src/client/sidecarClient.test.ts',
    program: 'sh',
    reason:
      'a child that closes its stdin and stays alive (`exec 0<&-`), so a write to it fails with EPIPE: a fixed script, no input',
  },
  {
    file: 'packages/protocol/src/transport/stdioLineTransport.test.ts',
    program: 'sh',
    reason:
      'a child that closes its stdin and stays alive (`exec 0<&-`), so a write to it fails with EPIPE: a fixed script, no input',
  },
  {
    file: 'packages/host/src/projection/terminalCommand.test.ts',
    program: 'bash',
    reason:
      'the terminal command is meant for a shell: bash runs it to prove a directory name with quotes, `$` and newlines reaches `claude` as it is (a fake `claude`)',
  },
  {
    file: 'packages/host/test/historyContinueOverHttp.test.ts',
    program: 'bash',
    reason:
      'the terminal command is meant for a shell: bash runs it with `-p`, as a user would, to resume with the real Claude Code',
  },
  {
    file: 'bin/commands/chatTerminalTestSupport.ts',
    program: 'script',
    reason:
      'util-linux script gives the chat a pseudo-terminal and takes its command as a shell string (built from the test’s own paths, quoted)',
  },
];

/** Files that only tests run: harnesses, fixtures, test helpers. */
function isTestCode(file: string): boolean {
  return (
    /(^|\/)(test|testing|harness)\//.test(file) ||
    /\.(test|fixture)\.[cm]?[jt]s$/.test(file) ||
    /TestSupport\.[cm]?[jt]s$/.test(file) ||
    file.startsWith('test/')
  );
}

const describeCall = (call: ChildProcessCall) =>
  `${call.file}:${call.line} ${call.fn}(${call.program}) — ${call.shell}`;

describe('no child is spawned through a shell', () => {
  test('statically: no child_process call site of the repository can start a shell', () => {
    const calls = childProcessCalls(ROOT, repositorySources(ROOT));
    // The audit sees the sites it must: the sidecar's own spawn is among them.
    assert.ok(
      calls.some(
        (call) => call.file === 'packages/claude-sdk-sidecar/src/process/sidecarProcess.ts' && call.fn === 'spawn',
      ),
      'the sidecar process spawn was found',
    );
    const shells = calls.filter((call) => call.shell !== undefined);
    const unexpected = shells.filter(
      (call) => !ALLOWED_SHELLS.some((allowed) => allowed.file === call.file && allowed.program === call.program),
    );
    assert.deepEqual(unexpected.map(describeCall), [], 'a shell is started only where listed');
    // The daemon, the sidecar and the CLI (what runs for a user) have no exception at all.
    const product = shells.filter((call) => /^(packages\/[^/]+\/src|bin)\//.test(call.file) && !isTestCode(call.file));
    assert.deepEqual(product.map(describeCall), [], 'the host, the sidecar and the CLI never start a shell');
    const stale = ALLOWED_SHELLS.filter(
      (allowed) => !shells.some((call) => call.file === allowed.file && call.program === allowed.program),
    );
    assert.deepEqual(stale, [], 'every listed exception still exists');
    console.log(`child_process call sites: ${calls.length} (${calls.length - shells.length} without a shell)`);
  });

  test('the audit reports every way a call can start a shell', () => {
    const flagged = (code: string) => childProcessCallsInText('example.ts', code).map((call) => call.shell);
    assert.deepEqual(flagged(`import { exec } from 'node:child_process'; exec('ls');`), [
      'exec always runs its command through a shell',
    ]);
    assert.deepEqual(flagged(`import { spawn } from 'child_process'; spawn('ls', [], { shell: true });`), [
      'shell: true',
    ]);
    assert.deepEqual(flagged(`import * as cp from 'node:child_process'; cp.spawnSync('ls', { shell: '/bin/zsh' });`), [
      "shell: '/bin/zsh'",
    ]);
    assert.deepEqual(flagged(`import { spawn } from 'node:child_process'; spawn('/bin/sh', ['-c', 'x']);`), [
      'the program is the shell /bin/sh',
    ]);
    assert.deepEqual(flagged(`import { spawn } from 'node:child_process'; const o = {}; spawn('ls', [], { ...o });`), [
      'options spread o',
    ]);
    assert.deepEqual(
      flagged(`import { spawn } from 'node:child_process'; const o = { shell: true }; spawn('ls', [], o);`),
      ['shell: true'],
    );
    assert.deepEqual(flagged(`import { exec } from 'node:child_process'; const run = promisify(exec); run('ls');`), [
      'exec always runs its command through a shell',
    ]);
    assert.deepEqual(flagged(`import { spawn } from 'node:child_process'; const f = spawn; f('ls');`), [
      'the function is used in a way this audit cannot follow',
    ]);
    assert.deepEqual(flagged(`const cp = require('child_process'); cp.execSync('ls');`), [
      'execSync always runs its command through a shell',
    ]);
    assert.deepEqual(flagged(`import { spawn } from 'node:child_process'; spawn('npm', ['run', 'build']);`), [
      'npm runs package scripts through a shell',
    ]);
    assert.deepEqual(
      flagged(
        `import { spawn, execFile } from 'node:child_process'; spawn('ls', ['-l'], { shell: false, cwd: '/' }); execFile(process.execPath, args, {}, () => {});`,
      ),
      [undefined, undefined],
    );
  });

  test('at run time: the host-side spawn of the sidecar and the SDK’s spawn of Claude Code during a Bash tool turn', async () => {
    const work = await mkdtemp(join(tmpdir(), 'outrigger-no-shell-'));
    const record = join(work, 'spawns.ndjson');
    const model = await startMockAnthropic({
      rules: [
        (view) =>
          view.isNewPrompt
            ? {
                content: [
                  { type: 'tool_use', name: 'Bash', input: { command: 'echo no-shell-check', description: 'Echo' } },
                ],
              }
            : { content: [{ type: 'text', text: 'Done.' }] },
      ],
    });
    const home = await createClaudeTestHome({ baseUrl: model.url });
    // This process too: its spawn of the sidecar is recorded like the sidecar's spawn of Claude Code.
    process.env[SPAWN_RECORD_ENV] = record;
    await import(`${PRELOAD}?in-process`);
    let sidecar: Awaited<ReturnType<typeof spawnSidecar>> | undefined;
    try {
      sidecar = await spawnSidecar({
        env: { ...home.env, NODE_OPTIONS: `--import=${PRELOAD}`, [SPAWN_RECORD_ENV]: record },
      });
      const agentSessionId = `no-shell-${randomUUID()}`;
      await sidecar.request(
        'start',
        { agentSessionId, cwd: home.cwd, permissionModeId: 'default' },
        { timeoutMs: 30_000 },
      );
      await sidecar.request('exec', { agentSessionId, turnId: 'bash-turn', prompt: 'Run the echo.' });
      const terminals = ['turn_completed', 'turn_failed', 'turn_canceled'];
      let terminal = await sidecar.waitForEvent(
        (event) => event.type === 'approval_requested' || terminals.includes(event.type),
        { timeoutMs: 30_000 },
      );
      if (terminal.type === 'approval_requested') {
        // Claude Code lets `echo` run unasked; should it ever ask, allow it.
        await sidecar.request('submit_interactive', {
          agentSessionId,
          turnId: 'bash-turn',
          requestId: (terminal.payload as { requestId: string }).requestId,
          action: 'allow',
          optionId: 'allow',
          payload: {},
        });
        terminal = await sidecar.waitForEvent((event) => terminals.includes(event.type), { timeoutMs: 30_000 });
      }
      assert.equal(terminal.type, 'turn_completed', JSON.stringify(terminal.payload));
      assert.ok(
        sidecar.events.some((event) => event.type === 'tool_completed'),
        'the Bash tool ran (Claude Code runs it in a shell of its own, which is the tool, not our spawn)',
      );
    } finally {
      await sidecar?.stop();
      delete process.env[SPAWN_RECORD_ENV];
      await model.close();
      await home.cleanup();
    }
    const spawns = await readRecords(record);
    await rm(work, { recursive: true, force: true });
    const ours = spawns.filter((entry) => entry.pid === process.pid);
    const inSidecar = spawns.filter((entry) => entry.pid === sidecar?.pid);
    assert.ok(
      ours.some((entry) => entry.file === process.execPath),
      `the sidecar spawn was recorded: ${JSON.stringify(ours)}`,
    );
    assert.ok(inSidecar.length > 0, 'the SDK’s spawn of Claude Code inside the sidecar was recorded');
    assertNoShell(spawns);
  });

  test('at run time: outrigger chat spawns the sidecar, and the sidecar Claude Code, without a shell', async () => {
    const home = await mkdtemp(join(tmpdir(), 'outrigger-no-shell-chat-'));
    const record = join(home, 'spawns.ndjson');
    const chat = spawnChat(home, {
      ...demoChatEnv(home),
      NODE_OPTIONS: `--import=${PRELOAD}`,
      [SPAWN_RECORD_ENV]: record,
    });
    const { child, exited } = chat;
    let processes: number[] = [];
    let spawns: SpawnRecord[] = [];
    try {
      child.stdin.end('hello there\n');
      await chat.untilReady();
      processes = descendants(child.pid ?? -1);
      await assertCleanExit(child, exited, processes, () => `${chat.stdout()}\n${chat.stderr()}`);
      assert.match(chat.stdout(), /Hi! I'm the Outrigger demo model/, 'the turn ran');
      spawns = await readRecords(record);
    } finally {
      await cleanUpChatProcess(child, processes, home);
    }
    const byCli = spawns.filter((entry) => entry.pid === child.pid);
    assert.ok(
      byCli.some((entry) => entry.file === process.execPath),
      `the CLI spawned the sidecar: ${JSON.stringify(spawns)}`,
    );
    assert.ok(
      spawns.some((entry) => entry.pid !== child.pid),
      'the sidecar’s spawn of Claude Code was recorded in the sidecar process',
    );
    assertNoShell(spawns);
  });
});

test('at run time: outrigger serve spawns the sidecar, and the sidecar Claude Code, without a shell', async () => {
  const home = await mkdtemp(join(tmpdir(), 'outrigger-no-shell-serve-'));
  const record = join(home, 'spawns.ndjson');
  const mark = randomUUID();
  let serve: Awaited<ReturnType<typeof spawnServe>> | undefined;
  try {
    // No credential: the host runs the demo model, through the real sidecar and Claude Code.
    serve = await spawnServe({
      args: ['--port', '0', '--data-dir', join(home, 'data')],
      env: { ...demoChatEnv(home), NODE_OPTIONS: `--import=${PRELOAD}`, [SPAWN_RECORD_ENV]: record },
      mark,
    });
    const { client } = serve;
    const { id } = await client.call('createSession', { body: { cwd: home } });
    const { turnId } = await client.call('postTurn', { params: { id }, body: { prompt: 'hello there' } });
    const frames = await readEventsUntil(client, id, isDoneOf(turnId));
    assert.equal((frames.at(-1)?.data as { outcome?: string } | undefined)?.outcome, 'completed');
    assert.equal(await serve.stop('SIGTERM'), 0);
    const servePid = serve.child.pid;
    serve = undefined;
    await assertNoProcessesLeft(mark, 20_000);
    const spawns = await readRecords(record);
    assert.ok(
      spawns.some((entry) => entry.pid === servePid && entry.file === process.execPath),
      `the host spawned the sidecar: ${JSON.stringify(spawns)}`,
    );
    assert.ok(
      spawns.some((entry) => entry.pid !== servePid && /claude/.test(entry.file)),
      'the sidecar’s spawn of Claude Code was recorded',
    );
    assertNoShell(spawns);
  } finally {
    await serve?.stop('SIGKILL');
    killMarkedProcesses(mark);
    await rm(home, { recursive: true, force: true });
  }
});

interface SpawnRecord {
  pid: number;
  argv1: string;
  fn: string;
  file: string;
  shell: unknown;
}

async function readRecords(path: string): Promise<SpawnRecord[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as SpawnRecord);
}

function assertNoShell(spawns: readonly SpawnRecord[]): void {
  const shells = spawns.filter(
    (entry) =>
      entry.fn === 'exec' ||
      entry.fn === 'execSync' ||
      (entry.shell !== null && entry.shell !== false) ||
      /(^|\/)(sh|bash|dash|zsh)$/.test(entry.file),
  );
  assert.deepEqual(shells, [], 'no child was started through a shell');
}

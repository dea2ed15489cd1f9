import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { methods, PROTOCOL_VERSION, type SessionNotification } from '@agentclientprotocol/sdk';
import { assertNoProcessesLeft, killMarkedProcesses, TEST_MARK_VARIABLE } from '../../host/test/harness/processes.ts';
import { credentialFreeEnv } from '../../host/test/harness/serveChild.ts';
import { type AcpProcess, hostOf, type PermissionPolicy, pick, startAcp } from './acpProcess.ts';

/*
 * `outrigger acp` as an editor runs it: the SDK's client app over a real child process, which starts the host
 * (the offline demo model: real sidecar, real Claude Code, the scripted API) and drives its sessions.
 */

const CLI = fileURLToPath(new URL('../../../bin/outrigger.ts', import.meta.url));
const mark = `acp-${process.pid}-${Date.now()}`;
let dir: string;
let dataDir: string;
let cwd: string;
let policy: PermissionPolicy = pick('allow_once');
let acp: AcpProcess;

const start = () =>
  startAcp({
    dataDir,
    env: { ...credentialFreeEnv(), CLAUDE_CONFIG_DIR: join(dir, 'no-claude') },
    mark,
    permission: () => policy,
  });

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'outrigger-acp-'));
  dataDir = join(dir, 'data');
  cwd = join(dir, 'project');
  await mkdir(cwd);
  acp = start();
});

after(async () => {
  await acp?.kill();
  try {
    const host = await hostOf(dataDir);
    process.kill(host.pid, 'SIGTERM');
  } catch {
    // no host was started
  }
  try {
    await assertNoProcessesLeft(mark, 20_000);
  } finally {
    killMarkedProcesses(mark);
    await rm(dir, { recursive: true, force: true });
  }
});

function updatesOf(session: string, from: number): SessionNotification['update'][] {
  return acp.updates
    .slice(from)
    .filter((notification) => notification.sessionId === session)
    .map((n) => n.update);
}

function textOf(updates: readonly SessionNotification['update'][], kind: string): string {
  return updates
    .flatMap((update) => {
      if (update.sessionUpdate !== kind || !('content' in update)) return [];
      const content = update.content as { type?: string; text?: string } | null | undefined;
      return content?.type === 'text' && typeof content.text === 'string' ? [content.text] : [];
    })
    .join('');
}

let sessionId: string;

test('initialize, a new session in the editor’s directory that the host lists, and a streamed answer', {
  timeout: 120_000,
}, async () => {
  const init = await acp.connection.agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  assert.equal(init.protocolVersion, PROTOCOL_VERSION);
  assert.equal(init.agentCapabilities?.loadSession, true);

  const created = await acp.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] });
  sessionId = created.sessionId;
  assert.ok(created.modes?.availableModes.some((mode) => mode.id === 'plan'));
  const host = await hostOf(dataDir);
  const listed = await host.client.call('listSessions');
  assert.ok(
    listed.sessions.some((session) => session.id === sessionId && session.cwd === cwd),
    'the browser lists it',
  );

  const from = acp.updates.length;
  const answer = await acp.connection.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: 'text', text: 'Show me some markdown' }],
  });
  assert.equal(answer.stopReason, 'end_turn');
  const streamed = textOf(updatesOf(sessionId, from), 'agent_message_chunk');
  assert.ok(streamed.length > 20, `the answer streamed: ${streamed}`);
  assert.equal(textOf(updatesOf(sessionId, from), 'user_message_chunk'), '', 'its own prompt is not echoed');
});

test('a command asks for permission in the editor; allowed, it runs as an execute tool call', {
  timeout: 120_000,
}, async () => {
  policy = pick('allow_once');
  const from = acp.updates.length;
  const asked = acp.permissions.length;
  const answer = await acp.connection.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: 'text', text: 'run a command please' }],
  });
  assert.equal(answer.stopReason, 'end_turn');
  const request = acp.permissions.at(asked);
  assert.ok(request !== undefined, 'a permission was asked');
  assert.deepEqual(
    request.options.map((option) => option.kind).sort(),
    ['allow_always', 'allow_once', 'reject_once'].filter((kind) => request.options.some((o) => o.kind === kind)).sort(),
  );
  const updates = updatesOf(sessionId, from);
  const call = updates.find((update) => update.sessionUpdate === 'tool_call');
  assert.ok(call !== undefined && call.sessionUpdate === 'tool_call');
  assert.equal(call.kind, 'execute');
  assert.ok(
    updates.some(
      (update) =>
        update.sessionUpdate === 'tool_call_update' &&
        update.toolCallId === call.toolCallId &&
        update.status === 'completed',
    ),
    'the call completed',
  );
});

test('an edit shows its diff; a plan arrives as plan entries', { timeout: 180_000 }, async () => {
  policy = pick('allow_once');
  let from = acp.updates.length;
  await acp.connection.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: 'text', text: 'edit a file and show the diff' }],
  });
  const edits = updatesOf(sessionId, from).flatMap((update) =>
    (update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update') && update.content
      ? update.content.filter((content) => content.type === 'diff')
      : [],
  );
  assert.ok(edits.length > 0, 'a diff was shown');
  assert.ok(
    edits.every((diff) => diff.type === 'diff' && diff.path.startsWith(cwd)),
    'with an absolute path',
  );

  from = acp.updates.length;
  await acp.connection.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: 'text', text: 'make a plan with todos' }],
  });
  const plans = updatesOf(sessionId, from).filter((update) => update.sessionUpdate === 'plan');
  assert.ok(plans.length > 0, 'the plan was sent');
  const last = plans.at(-1);
  assert.ok(last !== undefined && last.sessionUpdate === 'plan' && last.entries.length > 0);
});

test('a permission answered in the browser closes in the editor; the turn goes on', { timeout: 120_000 }, async () => {
  const host = await hostOf(dataDir);
  let closed = false;
  policy = (request, signal) =>
    new Promise((resolve) => {
      void (async () => {
        const { interactions } = await host.client.call('listSessionInteractions', {
          params: { id: request.sessionId },
          query: { status: 'pending' },
        });
        const [pending] = interactions;
        assert.ok(pending !== undefined);
        await host.client.call('answerInteraction', {
          params: { id: request.sessionId, requestId: pending.requestId },
          body: { action: 'allow', optionId: 'allow', payload: {} },
        });
      })();
      signal.addEventListener('abort', () => {
        closed = true;
        resolve({ outcome: { outcome: 'cancelled' } });
      });
    });
  const answer = await acp.connection.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: 'text', text: 'run another command' }],
  });
  assert.equal(answer.stopReason, 'end_turn');
  assert.equal(closed, true, 'the editor was told the request is gone');
});

test('cancel mid-stream answers the prompt with cancelled', { timeout: 120_000 }, async () => {
  const from = acp.updates.length;
  const prompt = acp.connection.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: 'text', text: 'give me a slow, long answer' }],
  });
  const deadline = Date.now() + 60_000;
  while (textOf(updatesOf(sessionId, from), 'agent_message_chunk') === '' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await acp.connection.agent.notify(methods.agent.session.cancel, { sessionId });
  assert.equal((await prompt).stopReason, 'cancelled');
});

test('modes and config options change the host session’s settings; an unknown one is refused', {
  timeout: 60_000,
}, async () => {
  const from = acp.updates.length;
  await acp.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'plan' });
  const host = await hostOf(dataDir);
  assert.equal(
    (await host.client.call('getSession', { params: { id: sessionId } })).session.settings.permissionMode,
    'plan',
  );
  const deadline = Date.now() + 20_000;
  while (
    !updatesOf(sessionId, from).some((u) => u.sessionUpdate === 'current_mode_update' && u.currentModeId === 'plan') &&
    Date.now() < deadline
  ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.ok(
    updatesOf(sessionId, from).some((u) => u.sessionUpdate === 'current_mode_update' && u.currentModeId === 'plan'),
    'the change comes back as the current mode',
  );
  const changed = await acp.connection.agent.request(methods.agent.session.setConfigOption, {
    sessionId,
    configId: 'effort',
    value: 'high',
  });
  assert.equal(changed.configOptions.find((option) => option.id === 'effort')?.currentValue, 'high');
  assert.equal((await host.client.call('getSession', { params: { id: sessionId } })).session.settings.effort, 'high');
  await assert.rejects(
    acp.connection.agent.request(methods.agent.session.setConfigOption, {
      sessionId,
      configId: 'effort',
      value: 'huge',
    }),
    (error: { code?: number; message?: string }) => error.code === -32602,
  );
  await assert.rejects(
    acp.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'yolo' }),
    (error: { code?: number }) => error.code === -32602,
  );
  await acp.connection.agent.request(methods.agent.session.setMode, { sessionId, modeId: 'default' });
});

test('bad requests get JSON-RPC errors', { timeout: 60_000 }, async () => {
  await assert.rejects(
    acp.connection.agent.request('outrigger/nope', {}),
    (error: { code?: number }) => error.code === -32601,
  );
  await assert.rejects(
    acp.connection.agent.request(methods.agent.session.prompt, {
      sessionId: 'no-such-session',
      prompt: [{ type: 'text', text: 'hello' }],
    }),
    (error: { code?: number }) => typeof error.code === 'number' && error.code < 0,
  );
  await assert.rejects(
    acp.connection.agent.request(methods.agent.session.new, { cwd: 'relative/dir', mcpServers: [] }),
    (error: { code?: number; message?: string }) => error.code === -32602,
  );
});

test('the editor killed and started again loads the session with its history; one made in the browser too', {
  timeout: 120_000,
}, async () => {
  await acp.kill();
  const host = await hostOf(dataDir);
  const fromBrowser = await host.client.call('createSession', { body: { cwd, title: 'from the browser' } });
  const browserTurn = await host.client.call('postTurn', {
    params: { id: fromBrowser.id },
    body: { prompt: 'Markdown from the browser, please' },
  });
  const deadline = Date.now() + 60_000;
  while ((await host.client.call('getSession', { params: { id: fromBrowser.id } })).session.runningTurnId !== null) {
    assert.ok(Date.now() < deadline, `the browser's turn ${browserTurn.turnId} did not end`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  acp = start();
  await acp.connection.agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  const listed = await acp.connection.agent.request(methods.agent.session.list, { cwd });
  assert.ok(listed.sessions.some((session) => session.sessionId === sessionId));
  assert.ok(
    listed.sessions.some((session) => session.sessionId === fromBrowser.id && session.title === 'from the browser'),
  );

  await acp.connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
  const replayed = updatesOf(sessionId, 0);
  assert.match(textOf(replayed, 'user_message_chunk'), /Show me some markdown/);
  assert.ok(textOf(replayed, 'agent_message_chunk').length > 20);
  assert.ok(
    replayed.some((update) => update.sessionUpdate === 'tool_call'),
    'its tool calls',
  );

  const answer = await acp.connection.agent.request(methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: 'text', text: 'Show me some markdown again' }],
  });
  assert.equal(answer.stopReason, 'end_turn', 'the loaded session takes prompts');

  await acp.connection.agent.request(methods.agent.session.load, { sessionId: fromBrowser.id, cwd, mcpServers: [] });
  const browserHistory = updatesOf(fromBrowser.id, 0);
  assert.match(textOf(browserHistory, 'user_message_chunk'), /Markdown from the browser, please/);
  assert.ok(textOf(browserHistory, 'agent_message_chunk').length > 20, 'the browser session’s answer is replayed');
});

test('a line that is not JSON-RPC is answered with a parse error, and the agent goes on', {
  timeout: 60_000,
}, async () => {
  const raw = spawn(process.execPath, [CLI, 'acp', '--data-dir', dataDir], {
    env: { ...credentialFreeEnv(), [TEST_MARK_VARIABLE]: mark },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => raw.once('exit', () => resolve()));
  try {
    const lines: { id?: unknown; error?: { code: number }; result?: unknown }[] = [];
    let buffered = '';
    raw.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      for (const part of parts) if (part.trim() !== '') lines.push(JSON.parse(part));
    });
    raw.stdin.write('{this is not json\n');
    raw.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`,
    );
    const deadline = Date.now() + 30_000;
    while (!lines.some((line) => line.id === 7) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(
      lines.some((line) => line.error?.code === -32700),
      `a parse error: ${JSON.stringify(lines)}`,
    );
    assert.ok(
      lines.some((line) => line.id === 7 && line.result !== undefined),
      'initialize still answered',
    );
  } finally {
    raw.kill('SIGKILL');
    await exited;
  }
});

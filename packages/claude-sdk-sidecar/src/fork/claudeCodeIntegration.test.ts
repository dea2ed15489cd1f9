import assert from 'node:assert/strict';
import { createHmac, randomBytes, randomUUID, type UUID } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  type CanUseTool,
  type Options,
  query,
  type SDKMessage,
  type SDKResultMessage,
  type SDKUserMessage,
} from '@anthropic-ai/claude-agent-sdk';
import { type MockAnthropic, startMockAnthropic } from '@outrigger/mock-anthropic';
import { type ClaudeTestHome, createClaudeTestHome } from '@outrigger/mock-anthropic/testing';
import { parseRequestPayload, type StartPayload } from '@outrigger/protocol';
import { buildQueryEnv } from '../config/settingsEnv.ts';
import { resolveStartOptions } from '../config/startOptions.ts';
import { forkSession } from './forkSession.ts';
import { inspectForkCheckpoints } from './inspectForkCheckpoints.ts';
import { recoverTurnBinding } from './recoverTurnBinding.ts';
import { sessionSdkForConfigDir } from './sessionSdk.ts';
import { fakeSessionSdk } from './transcriptFixtures.ts';
import { resolveTurnByCorrelationId } from './turnBindingResolution.ts';

// Real Claude Code against mock-anthropic; the Claude Code processes of this file run one at a time.
const TURN_TIMEOUT_MS = 30_000;

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function mockServer(options: Parameters<typeof startMockAnthropic>[0]): Promise<MockAnthropic> {
  const mock = await startMockAnthropic(options);
  cleanups.push(() => mock.close());
  return mock;
}

async function testHome(baseUrl: string): Promise<ClaudeTestHome> {
  const home = await createClaudeTestHome({ baseUrl });
  cleanups.push(() => home.cleanup());
  return home;
}

const allowEverything: CanUseTool = async (_tool, input) => ({ behavior: 'allow', updatedInput: input });

/** Runs a one-prompt Query to its end and returns its result; the process is always reaped. */
async function runOnce(prompt: string, options: Options): Promise<SDKResultMessage> {
  const run = query({ prompt, options });
  try {
    let result: SDKResultMessage | undefined;
    const deadline = Date.now() + TURN_TIMEOUT_MS;
    for (;;) {
      const next = await withDeadline(run.next(), deadline, `"${prompt}" did not finish`);
      if (next.done) break;
      if (next.value.type === 'result') result = next.value;
    }
    assert.ok(result, `"${prompt}" ended without a result`);
    return result;
  } finally {
    run.close();
  }
}

function withDeadline<T>(promise: Promise<T>, deadline: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} within ${TURN_TIMEOUT_MS} ms`)),
      Math.max(0, deadline - Date.now()),
    );
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

function resultText(result: SDKResultMessage): string {
  return result.subtype === 'success' ? result.result : `(${result.subtype})`;
}

/** The streaming input of a Query, one user message per turn, each with a chosen uuid. */
class PromptInput implements AsyncIterable<SDKUserMessage> {
  readonly #queued: SDKUserMessage[] = [];
  #wake: (() => void) | undefined;
  #ended = false;

  push(text: string, uuid: UUID): void {
    this.#queued.push({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, uuid });
    this.#wake?.();
  }

  end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<SDKUserMessage> {
    for (;;) {
      const next = this.#queued.shift();
      if (next) yield next;
      else if (this.#ended) return;
      else await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }
}

describe('fork and recovery against a real Claude Code transcript', () => {
  test('two turns: inspect, recover, fork at turn 1 and resume the child with turn-1 history only', async () => {
    const mock = await mockServer({
      rules: [
        { match: { userText: 'TURN1 hello' }, reply: { content: [{ type: 'text', text: 'first answer' }] } },
        { match: { userText: 'TURN2 again' }, reply: { content: [{ type: 'text', text: 'second answer' }] } },
        { match: { userText: 'TURN3 after fork' }, reply: { content: [{ type: 'text', text: 'third answer' }] } },
      ],
    });
    const home = await testHome(mock.url);
    const sdk = sessionSdkForConfigDir(home.configDir);
    const turn1 = randomUUID();
    const turn2 = randomUUID();

    const input = new PromptInput();
    const session = query({ prompt: input, options: { cwd: home.cwd, env: home.env, canUseTool: allowEverything } });
    let sessionId = '';
    try {
      const deadline = Date.now() + TURN_TIMEOUT_MS;
      const results: SDKResultMessage[] = [];
      input.push('TURN1 hello', turn1);
      for (;;) {
        const next: IteratorResult<SDKMessage> = await withDeadline(
          session.next(),
          deadline,
          'the session did not end',
        );
        if (next.done) break;
        if (next.value.type !== 'result') continue;
        results.push(next.value);
        sessionId = next.value.session_id;
        // Ending the input after the last turn lets Claude Code flush its transcript and exit.
        if (results.length === 1) input.push('TURN2 again', turn2);
        else input.end();
      }
      assert.deepEqual(results.map(resultText), ['first answer', 'second answer']);
    } finally {
      session.close();
    }

    const cwd = home.cwd;
    assert.deepEqual(await inspectForkCheckpoints({ providerSessionId: sessionId, cwd }, sdk), {
      providerTurnIds: [turn1, turn2],
    });

    const messages = await sdk.getSessionMessages(sessionId, { dir: cwd, includeSystemMessages: true });
    const turn1Checkpoint = messages[messages.findIndex((message) => message.uuid === turn2) - 1]?.uuid;
    assert.ok(turn1Checkpoint && turn1Checkpoint !== turn1, 'turn 1 ends with its answer');

    const live = await resolveTurnByCorrelationId({
      providerSessionId: sessionId,
      cwd,
      correlationId: turn2,
      claudeConfigDir: home.configDir,
    });
    assert.equal(live.providerTurnId, turn2);

    const noProof = {
      providerSessionId: sessionId,
      cwd,
      recoveryToken: '',
      legacyTextHmacKey: '',
      legacyTextHmacDigest: '',
    };
    assert.deepEqual(await recoverTurnBinding({ ...noProof, recoveryToken: turn1 }, sdk), {
      providerSessionId: sessionId,
      providerTurnId: turn1,
      providerCheckpointMessageId: turn1Checkpoint,
    });
    const key = randomBytes(32);
    const legacy = {
      legacyTextHmacKey: key.toString('base64url'),
      legacyTextHmacDigest: createHmac('sha256', key).update('TURN1 hello').digest('base64url'),
    };
    assert.equal((await recoverTurnBinding({ ...noProof, ...legacy }, sdk)).providerTurnId, turn1);
    await assert.rejects(recoverTurnBinding({ ...noProof, recoveryToken: randomUUID() }, sdk), {
      message: 'Claude provider turn recovery proof is absent',
    });
    // The same prompt twice (as a replayed transcript would have it) cannot be told apart by its text.
    const replayed = messages.map((message) => ({ ...message, uuid: randomUUID() }));
    await assert.rejects(
      recoverTurnBinding({ ...noProof, ...legacy }, fakeSessionSdk({ [sessionId]: [...messages, ...replayed] })),
      {
        message: 'Claude provider turn recovery proof is ambiguous',
        details: {
          transcriptMessageCount: messages.length * 2,
          rootUserMessageCount: 4,
          matchingRootUserMessageCount: 2,
          latestRootUserMessageId: replayed.findLast((message) => message.type === 'user')?.uuid,
        },
      },
    );

    const fork = await forkSession(
      { providerSessionId: sessionId, providerTurnId: turn1, providerCheckpointMessageId: '', cwd, title: 'Turn one' },
      sdk,
    );
    assert.notEqual(fork.providerSessionId, sessionId);
    assert.equal(fork.targetProviderTurnBindings.length, 1);
    assert.match(fork.stateBindingReceipt, /^claude-sdk-fork-v3:[0-9a-f]{64}$/);
    assert.equal(fork.deliveryDisposition, 'accepted');
    assert.equal((await sdk.getSessionInfo(fork.providerSessionId, { dir: cwd }))?.customTitle, 'Turn one');

    // A checkpoint persisted by an older host may be a uuid that never reached the transcript.
    const stale = await forkSession(
      {
        providerSessionId: sessionId,
        providerTurnId: turn1,
        providerCheckpointMessageId: randomUUID(),
        cwd,
        title: '',
      },
      sdk,
    );
    assert.equal(stale.targetProviderTurnBindings.length, 1);
    assert.notEqual(stale.providerSessionId, fork.providerSessionId);

    const requestsBefore = mock.messageRequests().length;
    const resumed = await runOnce('TURN3 after fork', {
      cwd,
      env: home.env,
      resume: fork.providerSessionId,
      canUseTool: allowEverything,
    });
    assert.equal(resultText(resumed), 'third answer');
    assert.equal(resumed.session_id, fork.providerSessionId);
    const history = JSON.stringify(mock.messageRequests().slice(requestsBefore).at(-1)?.body);
    assert.ok(history.includes('TURN1 hello') && history.includes('first answer'), 'turn 1 is in the child history');
    assert.ok(!history.includes('TURN2 again') && !history.includes('second answer'), 'turn 2 is not');
    const child = await inspectForkCheckpoints({ providerSessionId: fork.providerSessionId, cwd }, sdk);
    assert.equal(child.providerTurnIds.length, 2);
    assert.equal(child.providerTurnIds[0], fork.targetProviderTurnBindings[0]?.providerTurnId);
    assert.deepEqual(mock.unmatched, []);
  });
});

describe('Query env and start options against real Claude Code', () => {
  test('settings env layering picks the project-local ANTHROPIC_BASE_URL over the user one', async () => {
    const userServer = await mockServer({ rules: [{ reply: { content: [{ type: 'text', text: 'from user' }] } }] });
    const localServer = await mockServer({ rules: [{ reply: { content: [{ type: 'text', text: 'from local' }] } }] });
    // The sidecar's own env points nowhere: only the settings layers can reach a server.
    const home = await testHome('http://127.0.0.1:9');
    const projectSettings = join(home.cwd, '.claude');
    await mkdir(projectSettings);
    await writeFile(
      join(home.configDir, 'settings.json'),
      JSON.stringify({ env: { ANTHROPIC_BASE_URL: userServer.url } }),
    );
    await writeFile(
      join(projectSettings, 'settings.json'),
      JSON.stringify({ env: { ANTHROPIC_BASE_URL: userServer.url } }),
    );
    await writeFile(
      join(projectSettings, 'settings.local.json'),
      JSON.stringify({ env: { ANTHROPIC_BASE_URL: localServer.url } }),
    );

    const env = buildQueryEnv({ processEnv: home.env, cwd: home.cwd, payloadEnv: {} });
    // Claude Code must not read the settings files itself, or this would not test the sidecar's merge.
    const result = await runOnce('which server', { cwd: home.cwd, env, settingSources: [] });
    assert.equal(resultText(result), 'from local');
    assert.equal(userServer.requests.length, 0);
    assert.ok(localServer.messageRequests().length > 0);
  });

  test('plan mode with TUTTI_CLAUDE_PLANS_DIRECTORY writes the plan file into that directory', async () => {
    const planText = '# Plan\n\n1. Inspect\n2. Implement\n3. Verify\n';
    const mock = await mockServer({
      rules: [
        (request) => {
          const names = request.toolResults.map((toolResult) => toolResult.toolName);
          if (names.includes('ExitPlanMode')) return { content: [{ type: 'text', text: 'Plan approved.' }] };
          if (names.includes('Write')) return { content: [{ type: 'tool_use', name: 'ExitPlanMode', input: {} }] };
          // Plan mode tells the model where its plan file goes; write exactly there.
          const planPath = /create your plan at (\S+?\.md) using the Write tool/.exec(
            JSON.stringify(request.body),
          )?.[1];
          if (!planPath) return { content: [{ type: 'text', text: 'no plan file path in the request' }] };
          return { content: [{ type: 'tool_use', name: 'Write', input: { file_path: planPath, content: planText } }] };
        },
      ],
    });
    const home = await testHome(mock.url);
    const parsed = parseRequestPayload('start', {
      agentSessionId: 'plan-session',
      cwd: home.cwd,
      permissionModeId: 'plan',
      env: { TUTTI_CLAUDE_PLANS_DIRECTORY: 'team-plans' },
    });
    assert.ok(parsed.ok, 'the start payload parses');
    const payload = parsed.value as StartPayload;
    const start = await resolveStartOptions(payload, { processEnv: home.env });
    assert.equal(start.permissionMode, 'plan');

    const tools: string[] = [];
    const result = await runOnce('draft a plan', {
      ...start.queryOptions,
      cwd: home.cwd,
      env: buildQueryEnv({ processEnv: home.env, cwd: home.cwd, payloadEnv: payload.env }),
      permissionMode: start.permissionMode,
      canUseTool: async (tool, input) => {
        tools.push(tool);
        return { behavior: 'allow', updatedInput: input };
      },
    });
    assert.equal(resultText(result), 'Plan approved.');
    assert.ok(tools.includes('ExitPlanMode'), 'ExitPlanMode asked the host');
    const plansDir = join(home.cwd, 'team-plans');
    const files = await readdir(plansDir);
    assert.equal(files.length, 1, `one plan file in ${plansDir}`);
    assert.equal(await readFile(join(plansDir, files[0] as string), 'utf8'), planText);
    assert.deepEqual(mock.unmatched, []);
  });
});

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { canaries, canariesIn } from '@outrigger/claude-sdk-sidecar/testing';
import { HostApiError, type SseFrame } from '@outrigger/host-api';
import { startMockAnthropic } from '@outrigger/mock-anthropic';
import { createClaudeTestHome } from '@outrigger/mock-anthropic/testing';
import { bashCall, caseScripts, slowText, text } from '../src/sessions/testing/scriptedModel.ts';
import { assertNoProcessesLeft, killMarkedProcesses } from './harness/processes.ts';
import { type ServeChild, spawnServe } from './harness/serveChild.ts';
import { isDoneOf, readEventsUntil } from './harness/sseReader.ts';

/*
 * The canaries of the sidecar's tests (a prompt, a tool's input, the API key in the environment, a
 * credential in the Claude settings file) planted in a real `outrigger serve` (debug logging, the sidecar's
 * auth-refresh records on) while turns go wrong: an approval refused with a secret message, a gateway error
 * quoting the settings key, a cancel mid-stream, and requests the host refuses with secrets in their fields.
 * None of them may reach the host's stderr, its log file or an error body; no credential reaches any SSE event.
 */

const dataOf = <T = Record<string, unknown>>(frame: SseFrame | undefined) => frame?.data as T;

test('no prompt, tool input or credential in the host’s stderr, log file or error bodies, under faults', async () => {
  const cases = caseScripts();
  const mock = await startMockAnthropic({ rules: [cases.rule] });
  const home = await createClaudeTestHome({
    baseUrl: mock.url,
    env: { ANTHROPIC_API_KEY: canaries.credential, CLAUDE_CODE_MAX_RETRIES: '0' },
  });
  await writeFile(
    join(home.configDir, 'settings.json'),
    JSON.stringify({ env: { ANTHROPIC_API_KEY: canaries.settingsCredential } }),
  );
  const dataDir = await mkdtemp(join(tmpdir(), 'outrigger-canary-'));
  const mark = randomUUID();
  let host: ServeChild | undefined;
  const errorBodies: string[] = [];
  let serveOutput = '';
  const seen: SseFrame[] = [];
  try {
    host = await spawnServe({
      args: ['--port', '0', '--data-dir', dataDir],
      env: { ...home.env, OUTRIGGER_LOG_LEVEL: 'debug', TUTTI_CLAUDE_AUTH_REFRESH_DEBUG: '1' },
      mark,
    });
    const { client } = host;
    const sessionId = (await client.call('createSession', { body: { cwd: home.cwd, title: 'canaries' } })).id;
    const secretPrompt = (script: Parameters<typeof cases.prompt>[1]) =>
      cases.prompt(`please: ${canaries.prompt}`, script);
    const run = async (prompt: string, during?: (turnId: string, from: number) => Promise<void>) => {
      const from = (await client.call('getSession', { params: { id: sessionId } })).lastSeq;
      const { turnId } = await client.call('postTurn', { params: { id: sessionId }, body: { prompt } });
      await during?.(turnId, from);
      const frames = await readEventsUntil(client, sessionId, isDoneOf(turnId), { lastEventId: from });
      seen.push(...frames);
      return dataOf<{ outcome: string }>(frames.at(-1)).outcome;
    };

    // A tool with secret input, refused with a secret message.
    const refused = await run(secretPrompt({ prompt: bashCall(canaries.toolInput) }), async (_turnId, from) => {
      const asked = await readEventsUntil(client, sessionId, (frame) => frame.event === 'permission_request', {
        lastEventId: from,
      });
      const requestId = dataOf<{ interaction: { requestId: string } }>(asked.at(-1)).interaction.requestId;
      await client.call('answerInteraction', {
        params: { id: sessionId, requestId },
        body: { action: 'reject', optionId: 'reject', payload: { message: `no: ${canaries.toolInput}` } },
      });
    });
    assert.ok(['completed', 'failed'].includes(refused), refused);

    // A gateway whose error quotes the key from the settings file.
    const gateway = await run(
      secretPrompt({
        prompt: { error: { status: 403, message: `key ${canaries.settingsCredential} may not do this` } },
      }),
    );
    assert.equal(gateway, 'failed');

    // A cancel while a secret prompt's answer streams (the sidecar writes cancel diagnostics).
    const canceled = await run(secretPrompt({ prompt: slowText(40) }), async (turnId, from) => {
      await readEventsUntil(client, sessionId, (frame) => frame.event === 'text', { lastEventId: from });
      await client.call('cancelTurn', { params: { id: sessionId, turnId }, body: {} });
    });
    assert.equal(canceled, 'canceled');
    assert.equal(await run(cases.prompt('still there?', { prompt: text('Yes.') })), 'completed');

    // Requests the host refuses, with secrets in their values.
    // `echoed`: what the body must repeat to its sender (a working directory that does not exist is named, issue
    // 17); it is taken out before the body is searched, and it must still reach no log.
    const refuse = async (call: () => Promise<unknown>, echoed?: string) => {
      await assert.rejects(call(), (error: unknown) => {
        assert.ok(error instanceof HostApiError, String(error));
        assert.ok(error.status >= 400 && error.status < 500, `${error.status} ${error.message}`);
        const body = JSON.stringify({ message: error.message, details: error.details });
        if (echoed !== undefined) assert.ok(body.includes(echoed), `the body names ${echoed}: ${body}`);
        errorBodies.push(echoed === undefined ? body : body.replaceAll(echoed, '<echoed>'));
        return true;
      });
    };
    const missingCwd = `/no/such/${canaries.prompt}`;
    await refuse(() => client.call('createSession', { body: { cwd: missingCwd } }), missingCwd);
    await refuse(() =>
      client.call('postTurn', {
        params: { id: sessionId },
        body: { prompt: canaries.prompt, mode: canaries.toolInput as 'queue' },
      }),
    );
    await refuse(() =>
      client.call('answerInteraction', {
        params: { id: sessionId, requestId: 'no-such-request' },
        body: { action: 'allow', payload: { answers: { q: canaries.prompt }, key: canaries.credential } },
      }),
    );
    await refuse(() =>
      client.call('updateSettings', { params: { id: sessionId }, body: { model: canaries.credential.repeat(20) } }),
    );
    await refuse(() => client.call('createTask', { body: { session_id: canaries.prompt, title: canaries.toolInput } }));

    assert.equal(await host.stop('SIGTERM'), 0);
    serveOutput = host.output();
    host = undefined;
    await assertNoProcessesLeft(mark, 20_000);
  } finally {
    await host?.stop('SIGKILL');
    killMarkedProcesses(mark);
    await mock.close();
    await home.cleanup();
  }
  try {
    const logs = join(dataDir, 'logs');
    const files = await readdir(logs);
    const log = (await Promise.all(files.map((file) => readFile(join(logs, file), 'utf8')))).join('');
    assert.ok(log.includes('"event":"http.request"'), 'precondition: the debug log was written');
    assert.ok(
      /cancel_diagnostic|CANCEL_DIAGNOSTIC/.test(log),
      'precondition: the sidecar’s cancel diagnostics reached the log',
    );
    assert.deepEqual(canariesIn(log), [], 'the log file holds no canary');
    assert.deepEqual(canariesIn(serveOutput), [], 'the host’s stdout and stderr hold no canary');
    for (const body of errorBodies) assert.deepEqual(canariesIn(body), [], `an error body: ${body}`);
    assert.equal(errorBodies.length, 5);
    const events = JSON.stringify(seen);
    for (const credential of [canaries.credential, canaries.settingsCredential]) {
      assert.equal(events.includes(credential), false, 'no credential in any event a client got');
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { canaries, canariesIn } from '../../src/testing/canaries.ts';
import { type ControlSession, openControlSession } from './controlSession.ts';
import { bashCall } from './scriptedModel.ts';

/*
 * The canaries of src/testing/canaries.ts planted where a user's secrets would be — the prompt, a tool's
 * input, the API key in the sidecar's environment, a credential in the Claude settings file — while the real
 * sidecar and Claude Code go through the ways a turn ends badly: a cancel during an approval, an invalid
 * key (401), gateways whose error quotes the key they refused (403, 500), a rate limit (429), a stall past
 * the budget, and requests the sidecar refuses. Then: no canary in the sidecar's stderr (diagnostics
 * included) nor in any error it answered or published (failure events, failed assistant messages, which is
 * where Claude Code writes an API error's text), and no credential anywhere in its output at all.
 * (An API error's own text is relayed as the provider wrote it, minus credentials: a real API does not
 * quote prompts, and the user needs its words, "credit balance too low", "prompt is too long".)
 */

const WARNING_MS = 500;
const BUDGET_MS = 1_500;

describe('no prompt, tool input or credential leaks from the sidecar under faults', () => {
  let session: ControlSession;

  before(async () => {
    session = await openControlSession({
      sidecarEnv: {
        ANTHROPIC_API_KEY: canaries.credential,
        // The auth-refresh records list the environment; they must name variables, never values.
        TUTTI_CLAUDE_AUTH_REFRESH_DEBUG: '1',
        OUTRIGGER_SIDECAR_STREAM_STALL_WARNING_MS: String(WARNING_MS),
        OUTRIGGER_SIDECAR_STREAM_STALL_BUDGET_MS: String(BUDGET_MS),
        CLAUDE_CODE_MAX_RETRIES: '0',
      },
    });
    // Read by every Query generation the session starts (the first starts with the first exec).
    await writeFile(
      join(session.home.configDir, 'settings.json'),
      JSON.stringify({ env: { ANTHROPIC_API_KEY: canaries.settingsCredential, OUTRIGGER_NOTE: canaries.prompt } }),
    );
  });

  after(async () => {
    await session?.close();
  });

  const turn = (label: string) => `${label}-${randomUUID()}`;
  const secretPrompt = (script: Parameters<ControlSession['model']['prompt']>[1]) =>
    session.model.prompt(`Please help: ${canaries.prompt}`, script);

  it('a cancel while a tool with secret input waits for approval', async () => {
    const turnId = turn('cancel-approval');
    await session.exec(turnId, secretPrompt({ prompt: bashCall(canaries.toolInput) }));
    await session.waitForEvent('approval_requested', turnId);
    const canceled = await session.cancel(turnId);
    assert.equal(canceled.type, 'ok', JSON.stringify(canceled.payload));
    assert.equal((await session.waitForTerminal(turnId)).type, 'turn_canceled');
  });

  it('an invalid API key (401), gateways quoting the keys they refused (403, 500), a rate limit (429)', async () => {
    const replies = [
      { error: { status: 401, message: `invalid x-api-key ${canaries.credential}` } },
      { error: { status: 403, message: `key ${canaries.settingsCredential} may not use this model` } },
      { error: { status: 500, message: `upstream refused ${canaries.settingsCredential}` } },
      { error: { status: 429, message: 'rate limited', retryAfterSeconds: 0 } },
    ];
    for (const reply of replies) {
      const turnId = turn(`api-${reply.error.status}`);
      await session.exec(turnId, secretPrompt({ prompt: reply }));
      const terminal = await session.waitForTerminal(turnId, 60_000);
      assert.equal(terminal.type, 'turn_failed', JSON.stringify(terminal.payload));
    }
  });

  it('a stream that stalls mid-answer, on a secret prompt', async () => {
    const turnId = turn('stall');
    await session.exec(
      turnId,
      secretPrompt({
        prompt: {
          content: [{ type: 'text', text: 'partial answer and then silence', chunkSize: 8, chunkDelayMs: 600_000 }],
        },
      }),
    );
    const terminal = await session.waitForTerminal(turnId, 30_000);
    assert.equal(terminal.payload.code, 'stream_stalled', JSON.stringify(terminal.payload));
  });

  it('requests the sidecar refuses, carrying secrets in their fields', async () => {
    const refused = [
      await session.sidecar.request('exec', {
        agentSessionId: 'no-such-session',
        turnId: 't',
        prompt: canaries.prompt,
      }),
      await session.sidecar.request('guide', { agentSessionId: session.agentSessionId, prompt: canaries.prompt }),
      await session.sidecar.request('start', {
        agentSessionId: `refused-${randomUUID()}`,
        effort: canaries.prompt,
        env: { ANTHROPIC_API_KEY: canaries.credential },
      }),
    ];
    for (const answer of refused) assert.equal(answer.type, 'error', JSON.stringify(answer.payload));
    // An answer to an interaction the sidecar does not know is no error (its disposition says so): it must
    // not repeat what it was given either.
    const unknown = await session.sidecar.request('submit_interactive', {
      agentSessionId: session.agentSessionId,
      turnId: 'gone',
      requestId: 'gone',
      action: 'allow',
      payload: { answers: { q: canaries.prompt }, updatedInput: { command: canaries.toolInput } },
    });
    assert.deepEqual(unknown.payload, { disposition: 'unknown' });
  });

  it('a later turn still works, then nothing leaked anywhere', async () => {
    const turnId = turn('after');
    await session.exec(
      turnId,
      session.model.prompt('Say done.', { prompt: { content: [{ type: 'text', text: 'Done.' }] } }),
    );
    assert.equal((await session.waitForTerminal(turnId)).type, 'turn_completed');

    const { sidecar } = session;
    const stderr = sidecar.stderrLines.join('\n');
    assert.ok(
      sidecar.stderrLines.some((line) => line.startsWith('CLAUDE_CODE_CANCEL_DIAGNOSTIC')),
      'precondition: the cancel wrote its diagnostics',
    );
    assert.ok(
      sidecar.stderrLines.some((line) => line.startsWith('CLAUDE_CODE_AUTH_REFRESH_DEBUG')),
      'precondition: the auth-refresh records were written',
    );
    assert.deepEqual(canariesIn(stderr), [], 'stderr (diagnostics included) holds no canary');

    const failureTypes = ['error', 'turn_failed', 'turn_canceled', 'assistant_failed'];
    const errors = sidecar.log
      .filter((line) => failureTypes.includes(line.type))
      .map((line) => JSON.stringify(line.payload));
    assert.ok(errors.length >= 9, `precondition: the faults produced errors (${errors.length})`);
    for (const error of errors) assert.deepEqual(canariesIn(error), [], `an error carried a canary: ${error}`);

    // Nor any credential in any other line: the model never saw one, no tool printed one.
    const everything = JSON.stringify(sidecar.log);
    for (const credential of [canaries.credential, canaries.settingsCredential]) {
      assert.equal(everything.includes(credential), false, 'no credential in any line the sidecar wrote');
    }
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  assistantText,
  backgroundTasksChanged,
  errorResult,
  promptEcho,
  sessionIdle,
  successResult,
  taskNotificationUser,
} from '../testing/sdkMessageBuilders.ts';
import { execPayload, type Harness, harness, startedWithTurn } from '../testing/sessionRuntimeHarness.ts';

/** One Query serves turn after turn; it is replaced only when it must be (decision in docs/sidecar.md). */

/** Runs one more turn on Query `index` and resolves with the uuid its prompt carried. */
async function completeTurn(h: Harness, turnId: string, index = 0): Promise<string> {
  const sent = h.queries[index]?.prompts.length ?? 0;
  await h.runtime.exec(execPayload(turnId));
  const query = await h.nextQuery(index);
  const prompts = await query.waitForPrompts(sent + 1);
  const uuid = prompts.at(-1)?.uuid;
  assert.ok(uuid, 'the prompt carries a correlation uuid');
  query.push(promptEcho(uuid), assistantText(`answer of ${turnId}`), successResult());
  assert.equal((await h.terminalOf(turnId)).type, 'turn_completed');
  return uuid;
}

test('later turns reuse the live Query, and each binds only to the echo of its own prompt', async () => {
  const h = harness();
  const first = await startedWithTurn(h);
  h.query().push(promptEcho(first), assistantText('one'), successResult(), sessionIdle());
  await h.terminalOf('t1');
  const second = await completeTurn(h, 't2');
  const third = await completeTurn(h, 't3');

  assert.equal(h.queries.length, 1, 'no second Query was created');
  assert.deepEqual(h.query().calls, [], 'the Query was neither interrupted nor closed');
  assert.deepEqual(
    h.eventsOf('provider_turn_identity_resolved').map((event) => [event.payload.turnId, event.payload.providerTurnId]),
    [
      ['t1', first],
      ['t2', second],
      ['t3', third],
    ],
  );
  assert.equal(new Set([first, second, third]).size, 3, 'every turn had its own correlation uuid');
  await h.runtime.close();
});

test('a failed turn leaves the Query serving the next turn', async () => {
  const h = harness();
  const first = await startedWithTurn(h);
  h.query().push(promptEcho(first), errorResult(['model overloaded']));
  assert.equal((await h.terminalOf('t1')).type, 'turn_failed');
  await completeTurn(h, 't2');
  assert.equal(h.queries.length, 1);
  await h.runtime.close();
});

test('the idle TTL frees the Query; the next turn resumes the session in a new one', async () => {
  const h = harness({ timers: { idleQueryTtlMs: 30 } });
  const first = await startedWithTurn(h);
  h.query().push(promptEcho(first), assistantText('one'), successResult());
  await h.terminalOf('t1');
  await h.poll(() => (h.query().calls.includes('close') ? true : undefined), 'the idle Query to be closed');
  assert.deepEqual(h.query().calls, ['close'], 'an idle Query is closed without an interrupt');

  await completeTurn(h, 't2', 1);
  assert.equal(h.query(1).options.resume, h.runtime.providerSessionId, 'the new Query resumes the session');
  await h.runtime.close();
});

test('the idle TTL waits for running background tasks', async () => {
  const h = harness({ timers: { idleQueryTtlMs: 20 } });
  const first = await startedWithTurn(h);
  h.query().push(
    promptEcho(first),
    backgroundTasksChanged(['bash-1', 'local_bash']),
    assistantText('launched'),
    successResult(),
  );
  await h.terminalOf('t1');
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(h.query().calls, [], 'a Query whose background task runs is kept past its TTL');

  h.query().push(backgroundTasksChanged(), sessionIdle());
  await h.poll(() => (h.query().calls.includes('close') ? true : undefined), 'the Query to close once the task ended');
  await h.runtime.close();
});

test('the TTL does not run while a turn is in flight', async () => {
  const h = harness({ timers: { idleQueryTtlMs: 20 } });
  const first = await startedWithTurn(h);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(h.query().calls, [], 'the Query of an unsettled turn is never retired');
  h.query().push(promptEcho(first), assistantText('late'), successResult());
  assert.equal((await h.terminalOf('t1')).type, 'turn_completed');
  await h.runtime.close();
});

test('effort and speed are applied to the live Query and kept for the next one', async () => {
  const h = harness({ timers: { idleQueryTtlMs: 30 } });
  await h.runtime.start();
  await h.runtime.applySettings({ agentSessionId: 's1', effort: 'high', speed: 'fast' });
  assert.deepEqual(h.query().calls, ['applyFlagSettings:{"effortLevel":"high","fastMode":true}']);
  await h.poll(() => (h.query().calls.includes('close') ? true : undefined), 'the idle Query to be closed');
  await h.runtime.exec(execPayload('t1'));
  const next = await h.nextQuery(1);
  assert.deepEqual(next.options.settings, { effortLevel: 'high', fastMode: true }, 'create-time settings');
  await h.runtime.close();
});

test('flags the live Query refuses retire it while idle, so the next Query starts with them', async () => {
  const h = harness();
  await h.runtime.start();
  h.query().applyFlagSettings = async () => {
    throw new Error('flag settings refused');
  };
  await assert.rejects(h.runtime.applySettings({ agentSessionId: 's1', effort: 'low' }), /flag settings refused/);
  assert.deepEqual(h.query().calls, ['close']);
  await h.runtime.exec(execPayload('t1'));
  const next = await h.nextQuery(1);
  assert.deepEqual(next.options.settings, { effortLevel: 'low' });
  await h.runtime.close();
});

test('model and permission mode change on the live Query without replacing it', async () => {
  const h = harness();
  const first = await startedWithTurn(h);
  h.query().push(promptEcho(first), assistantText('one'), successResult());
  await h.terminalOf('t1');
  await h.runtime.applySettings({ agentSessionId: 's1', model: 'claude-sonnet-test', permissionMode: 'plan' });
  assert.deepEqual(h.query().calls, ['setPermissionMode:plan', 'setModel:claude-sonnet-test']);
  await completeTurn(h, 't2');
  assert.equal(h.queries.length, 1);
  await h.runtime.close();
});

test('a continuation that timed out retires the idle Query, so its queued follow-up never meets the next prompt', async () => {
  const h = harness({ timers: { continuationStartTimeoutMs: 30 } });
  const first = await startedWithTurn(h);
  h.query().push(promptEcho(first), assistantText('launched'), successResult());
  await h.terminalOf('t1');
  h.query().push(taskNotificationUser('notification-uuid'));
  const delayed = await h.waitFor((event) => event.type === 'continuation_delayed', 'the continuation to time out');
  await h.terminalOf(String(delayed.payload.turnId));
  await h.poll(() => (h.query().calls.includes('close') ? true : undefined), 'the abandoned Query to be closed');
  assert.deepEqual(h.query().calls, ['interrupt', 'close']);

  await completeTurn(h, 't2', 1);
  assert.equal(h.query(1).options.resume, h.runtime.providerSessionId);
  assert.equal(h.eventsOf('error').length, 0, 'the retirement is not reported as a failed interrupt');
  await h.runtime.close();
});

import assert from 'node:assert/strict';
import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { eventPayloadSchemas, type SidecarEventType } from '@outrigger/protocol';
import { withDiagnosticSinkForTest } from '../diagnostics/diagnosticLine.ts';
import { sessionTranscriptPath } from '../goals/goalTranscript.ts';
import { assistantText, promptEcho, sessionIdle, successResult } from '../testing/sdkMessageBuilders.ts';
import { cancelPayload, execPayload, type Harness, harness, startPayload } from '../testing/sessionRuntimeHarness.ts';

/** Reference §3.2, §3.4 and §3.8: Goal commands on exec and what Claude reports about the Goal. */

const GOAL_EVENTS = new Set([
  'goal_command_started',
  'goal_command_superseded',
  'goal_command_canceled',
  'goal_observed',
]);

function goalExec(turnId: string, revision: number, action: 'set' | 'clear', fields: Record<string, unknown> = {}) {
  return execPayload(turnId, {
    turnOrigin: 'goal_arm',
    goalOperationId: 'op-1',
    goalRevision: revision,
    goalRepairEpoch: 2,
    goalAction: action,
    ...fields,
  });
}

function activeGoal(value: Record<string, unknown> | null): SDKMessage {
  return {
    type: 'active_goal',
    value,
    uuid: `goal-${String(value?.iterations)}`,
    session_id: 's',
  } as unknown as SDKMessage;
}

function goalRows(h: Harness) {
  return h.events.filter((event) => GOAL_EVENTS.has(event.type));
}

function assertMatchesProtocol(h: Harness): void {
  for (const event of h.events) {
    const schema = eventPayloadSchemas[event.type as SidecarEventType];
    assert.ok(schema, `${event.type} is a protocol event`);
    assert.ok(schema.safeParse(event.payload).success, `${event.type} ${JSON.stringify(event.payload)} matches`);
  }
}

/** Starts the session and sends one Goal command; resolves with the correlation uuid of its prompt. */
async function startedWithGoal(h: Harness, action: 'set' | 'clear' = 'set'): Promise<string> {
  await h.runtime.start();
  await h.runtime.exec(goalExec('goal-1', 1, action));
  const [prompt] = await h.query().waitForPrompts(1);
  assert.ok(prompt?.uuid);
  return prompt.uuid;
}

test('a Goal command starts on activation, and its identity and turn_started carry the Goal provenance', async () => {
  const h = harness();
  const correlation = await startedWithGoal(h);
  assert.deepEqual(goalRows(h), [], 'nothing is reported before Claude Code accepted the command');
  h.query().push(promptEcho(correlation), assistantText('goal set'), successResult());
  await h.terminalOf('goal-1');
  const provenance = { sourceGoalOperationId: 'op-1', sourceGoalRevision: 1, sourceGoalRepairEpoch: 2 };
  const sequence = h.events
    .filter((event) => ['provider_turn_identity_resolved', 'goal_command_started', 'turn_started'].includes(event.type))
    .map((event) => [event.type, event.payload]);
  assert.deepEqual(sequence, [
    [
      'provider_turn_identity_resolved',
      { turnId: 'goal-1', providerTurnId: correlation, turnOrigin: 'goal_arm', ...provenance },
    ],
    [
      'goal_command_started',
      {
        turnId: 'goal-1',
        providerTurnId: correlation,
        operationId: 'op-1',
        revision: 1,
        repairEpoch: 2,
        action: 'set',
      },
    ],
    ['turn_started', { turnId: 'goal-1', turnOrigin: 'goal_arm', ...provenance }],
  ]);
  assertMatchesProtocol(h);
  await h.runtime.close();
});

test('a clear arriving behind a queued set supersedes it; only the clear reaches Claude Code', async () => {
  const h = harness();
  await h.runtime.start();
  await h.runtime.exec(goalExec('set-1', 1, 'set'));
  await h.runtime.exec(goalExec('clear-2', 2, 'clear'));
  const [prompt] = await h.query().waitForPrompts(1);
  assert.ok(JSON.stringify(prompt?.message.content).includes('prompt of clear-2'), 'the clear is the prompt sent');
  assert.deepEqual(goalRows(h), [
    {
      type: 'goal_command_superseded',
      payload: { turnId: 'set-1', operationId: 'op-1', revision: 1, action: 'set', supersededByRevision: 2 },
    },
  ]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(h.query().prompts.length, 1, 'the superseded set is never sent');
  await h.runtime.close();
});

test('a cancel of a Goal command still in the queue withdraws it: pre_accept, pending_goal', async () => {
  const h = harness();
  await h.runtime.start();
  await h.runtime.exec(goalExec('goal-1', 1, 'set'));
  const result = await withDiagnosticSinkForTest(() => h.runtime.cancel(cancelPayload('goal-1'), { requestId: 'r1' }));
  assert.deepEqual(result, {
    canceled: true,
    disposition: 'pre_accept',
    turnId: 'goal-1',
    providerTurnId: '',
    dispatchPhase: 'pending_goal',
    queryRetired: false,
  });
  assert.deepEqual(goalRows(h), [
    {
      type: 'goal_command_canceled',
      payload: {
        turnId: 'goal-1',
        operationId: 'op-1',
        revision: 1,
        repairEpoch: 2,
        action: 'set',
        reason: 'cancel_requested',
      },
    },
  ]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(h.query().prompts.length, 0, 'the withdrawn command never reaches Claude Code');
  assert.equal(h.eventsOf('turn_canceled').length, 0);
  assert.deepEqual(h.query().calls, [], 'the Query is not touched');
  await h.runtime.close();
});

test('a dispatched Goal command that never started ends with goal_command_canceled, not turn_canceled', async () => {
  const h = harness();
  await startedWithGoal(h);
  const result = await withDiagnosticSinkForTest(() => h.runtime.cancel(cancelPayload('goal-1'), { requestId: 'r1' }));
  assert.equal(result.disposition, 'pre_accept');
  assert.equal(result.dispatchPhase, 'dispatched');
  assert.deepEqual(h.query().calls, ['interrupt', 'close']);
  assert.deepEqual(
    goalRows(h).map((event) => event.type),
    ['goal_command_canceled'],
  );
  assert.equal(h.eventsOf('turn_canceled').length, 0);
  await h.runtime.close();
});

test('a started Goal command that is canceled ends with turn_canceled', async () => {
  const h = harness();
  const correlation = await startedWithGoal(h);
  h.query().push(promptEcho(correlation));
  await h.waitFor((event) => event.type === 'goal_command_started', 'the Goal command to start');
  await withDiagnosticSinkForTest(() => h.runtime.cancel(cancelPayload('goal-1'), { requestId: 'r1' }));
  assert.equal((await h.terminalOf('goal-1')).type, 'turn_canceled');
  assert.equal(h.eventsOf('goal_command_canceled').length, 0);
  await h.runtime.close();
});

test('active_goal messages become goal_observed on the running turn; an unresolved Goal is blocked at idle', async () => {
  const h = harness();
  const correlation = await startedWithGoal(h);
  h.query().push(
    promptEcho(correlation),
    activeGoal({ condition: 'tests pass', iterations: 1, set_at: 1, tokens_at_start: 0, last_reason: 'one failing' }),
    assistantText('working'),
    successResult(),
    sessionIdle(),
  );
  await h.terminalOf('goal-1');
  const observed = await h.poll(
    () => (h.eventsOf('goal_observed').length === 2 ? h.eventsOf('goal_observed') : undefined),
    'the update and the idle verdict',
  );
  const base = { turnId: 'goal-1', providerTurnId: correlation, action: 'set', source: 'active_goal' };
  assert.deepEqual(
    observed.map((event) => event.payload),
    [
      {
        ...base,
        updateType: 'thread_goal_update',
        goal: { objective: 'tests pass', status: 'active', iterations: 1, reason: 'one failing' },
      },
      {
        ...base,
        updateType: 'thread_goal_update',
        goal: { objective: 'tests pass', status: 'blocked', iterations: 1, reason: 'one failing' },
      },
    ],
  );
  assertMatchesProtocol(h);
  await h.runtime.close();
});

test('goal_status verdicts appended to the transcript are reported before the result settles the turn', async () => {
  const configDir = await mkdtemp(join(tmpdir(), 'outrigger-goal-transcript-'));
  try {
    const h = harness({ payload: startPayload({ env: { CLAUDE_CONFIG_DIR: configDir } }) });
    const transcript = sessionTranscriptPath({
      configDir,
      cwd: tmpdir(),
      sessionId: h.runtime.providerSessionId,
    });
    await mkdir(dirname(transcript), { recursive: true });
    const row = (uuid: string, met: boolean) =>
      `${JSON.stringify({ type: 'attachment', uuid, attachment: { type: 'goal_status', met, condition: 'tests pass', iterations: 2, reason: uuid } })}\n`;
    await writeFile(transcript, row('written-before-start', false));

    const correlation = await startedWithGoal(h);
    h.query().push(promptEcho(correlation));
    await h.waitFor((event) => event.type === 'goal_command_started', 'the Goal command to start');
    await appendFile(transcript, row('verdict', true));
    h.query().push(assistantText('done'), successResult());
    const terminal = await h.terminalOf('goal-1');

    const observed = h.eventsOf('goal_observed');
    assert.deepEqual(
      observed.map((event) => event.payload),
      [
        {
          turnId: 'goal-1',
          providerTurnId: correlation,
          action: 'set',
          source: 'goal_status',
          updateType: 'thread_goal_completed',
          goal: { objective: 'tests pass', status: 'complete', iterations: 2, reason: 'verdict' },
        },
      ],
      'only the row appended after the start, once',
    );
    assert.ok(h.events.indexOf(observed[0] ?? { type: '', payload: {} }) < h.events.indexOf(terminal));
    await h.runtime.close();
  } finally {
    await rm(configDir, { recursive: true, force: true });
  }
});

test('close fails the Goal commands still waiting in the queue', async () => {
  const h = harness();
  await h.runtime.start();
  await h.runtime.exec(goalExec('goal-1', 1, 'set'));
  await h.runtime.close();
  assert.deepEqual(h.eventsOf('turn_failed'), [
    { type: 'turn_failed', payload: { turnId: 'goal-1', error: 'Claude SDK session closed' } },
  ]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(h.query().prompts.length, 0);
});

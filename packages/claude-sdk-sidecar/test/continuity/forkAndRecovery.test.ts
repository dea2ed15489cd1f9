import assert from 'node:assert/strict';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { MockRule } from '@outrigger/mock-anthropic';
import type {
  ForkSessionResult,
  InspectForkCheckpointsResult,
  RecoverTurnBindingResult,
  SidecarRequestError,
  StartResult,
} from '@outrigger/protocol';
import { resolveTurnByCorrelationId } from '../../src/fork/turnBindingResolution.ts';
import {
  assistantTextOf,
  type ContinuityRig,
  providerTurnIdOf,
  runTurn,
  startContinuityRig,
} from './continuityHarness.ts';

/*
 * The stateless reads (inspect_fork_checkpoints, fork_session, recover_turn_binding) through the real
 * sidecar process, on transcripts the real Claude Code wrote. One sidecar serves every case in order;
 * the source session is closed before the forked child is resumed, so one Claude Code runs at a time.
 */

const SOURCE_SESSION = 'continuity-fork-source';
const CHILD_SESSION = 'continuity-fork-child';
const TURN_ONE = 'TURN-ONE alpha: remember the word kestrel';
const TURN_TWO = 'TURN-TWO beta: remember the word heron';
const TURN_THREE = 'TURN-THREE gamma: which words do you remember?';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

const rules: MockRule[] = [
  (request) =>
    request.isNewPrompt ? { content: [{ type: 'text', text: `Answer to: ${request.lastUserText}` }] } : undefined,
];

let rig: ContinuityRig;
let sourceSessionId = '';
const providerTurnIds: string[] = [];
let fork: ForkSessionResult | undefined;

before(async () => {
  rig = await startContinuityRig({ rules });
  const started = await rig.sidecar.request<StartResult>('start', {
    agentSessionId: SOURCE_SESSION,
    cwd: rig.home.cwd,
    permissionModeId: 'default',
  });
  sourceSessionId = started.providerSessionId;
});

after(async () => {
  await rig?.dispose([SOURCE_SESSION, CHILD_SESSION]);
});

/** Rows of a session's JSONL transcript as Claude Code wrote it. */
function transcriptRows(sessionId: string): { type?: unknown; uuid?: unknown }[] {
  const projects = join(rig.home.configDir, 'projects');
  for (const project of readdirSync(projects)) {
    const file = join(projects, project, `${sessionId}.jsonl`);
    if (!existsSync(file)) continue;
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line));
  }
  throw new Error(`no transcript for session ${sessionId} under ${projects}`);
}

/** The uuid of the last assistant row of the turn that starts at `root`, as the transcript orders them. */
function lastAssistantOfTurn(sessionId: string, root: string): string {
  const rows = transcriptRows(sessionId);
  const start = rows.findIndex((row) => row.uuid === root);
  assert.ok(start >= 0, `root ${root} is in the transcript`);
  const next = rows.findIndex(
    (row, index) => index > start && row.type === 'user' && providerTurnIds.includes(String(row.uuid)),
  );
  const turnRows = rows.slice(start + 1, next < 0 ? undefined : next);
  const assistant = turnRows.filter((row) => row.type === 'assistant').at(-1);
  assert.ok(typeof assistant?.uuid === 'string', `turn ${root} has an assistant row`);
  return assistant.uuid;
}

function legacyProof(text: string): { legacyTextHmacKey: string; legacyTextHmacDigest: string } {
  const key = randomBytes(32);
  return {
    legacyTextHmacKey: key.toString('base64url'),
    legacyTextHmacDigest: createHmac('sha256', key).update(text, 'utf8').digest('base64url'),
  };
}

async function requestError(promise: Promise<unknown>): Promise<SidecarRequestError> {
  const error = await promise.then(
    (value) => assert.fail(`expected an error response, got ok ${JSON.stringify(value)}`),
    (failure: unknown) => failure,
  );
  assert.ok(error instanceof Error && error.name === 'SidecarRequestError', `an error response, got ${String(error)}`);
  return error as SidecarRequestError;
}

test('inspect_fork_checkpoints lists the providerTurnIds the two turns were bound to', async () => {
  const { sidecar } = rig;
  for (const prompt of [TURN_ONE, TURN_TWO]) {
    const { turnId, terminal } = await runTurn(sidecar, SOURCE_SESSION, prompt);
    assert.equal(terminal.type, 'turn_completed', `"${prompt}" completed`);
    providerTurnIds.push(providerTurnIdOf(sidecar.events, turnId));
  }
  const inspected = await sidecar.request<InspectForkCheckpointsResult>('inspect_fork_checkpoints', {
    providerSessionId: sourceSessionId,
    cwd: rig.home.cwd,
  });
  assert.deepEqual(inspected, { providerTurnIds });
});

test("the identity barrier's transcript read finds a turn by its correlation uuid in the real transcript", async () => {
  const [first, second] = providerTurnIds;
  assert.ok(first && second, 'precondition: both source turns were bound');
  // The live path binds from the prompt echo, so the barrier's fallback read is exercised here directly.
  const resolved = await resolveTurnByCorrelationId({
    providerSessionId: sourceSessionId,
    cwd: rig.home.cwd,
    correlationId: second,
    claudeConfigDir: rig.home.configDir,
  });
  assert.deepEqual(resolved, {
    providerTurnId: second,
    providerCheckpointMessageId: lastAssistantOfTurn(sourceSessionId, second),
  });
});

test('fork_session at the first turn creates a child with one binding and a v3 receipt', async () => {
  assert.equal(providerTurnIds.length, 2, 'precondition: both source turns were bound');
  fork = await rig.sidecar.request<ForkSessionResult>('fork_session', {
    providerSessionId: sourceSessionId,
    providerTurnId: providerTurnIds[0],
    cwd: rig.home.cwd,
    title: 'Continuity fork',
  });
  assert.match(fork.providerSessionId, UUID, 'the child id is a UUID');
  assert.notEqual(fork.providerSessionId, sourceSessionId, 'the child is a new session');
  assert.equal(fork.targetProviderTurnBindings.length, 1, 'the child holds exactly the first turn');
  const [binding] = fork.targetProviderTurnBindings;
  assert.ok(binding?.providerTurnId && binding.checkpointMessageId, 'the binding names a turn and a checkpoint');
  assert.equal(fork.stateBindingMode, 'provider_owned');
  assert.match(fork.stateBindingReceipt, /^claude-sdk-fork-v3:[0-9a-f]{64}$/);
  assert.equal(fork.deliveryDisposition, 'accepted');
  const childRows = transcriptRows(fork.providerSessionId);
  assert.ok(
    childRows.some((row) => row.uuid === binding.providerTurnId),
    "the child's binding names a root of the child's own transcript",
  );
  assert.ok(
    childRows.some((row) => (row as { customTitle?: unknown }).customTitle === 'Continuity fork'),
    'the child transcript carries the fork title',
  );
});

test('fork_session with a persisted checkpoint that never reached the transcript still forks the turn', async () => {
  const [first] = providerTurnIds;
  assert.ok(first && fork, 'precondition: the first fork succeeded');
  const stale = await rig.sidecar.request<ForkSessionResult>('fork_session', {
    providerSessionId: sourceSessionId,
    providerTurnId: first,
    providerCheckpointMessageId: randomUUID(),
    cwd: rig.home.cwd,
    title: '',
  });
  assert.equal(stale.deliveryDisposition, 'accepted');
  assert.equal(stale.targetProviderTurnBindings.length, 1, 'the child holds exactly the first turn');
  assert.notEqual(stale.providerSessionId, sourceSessionId);
  assert.notEqual(stale.providerSessionId, fork.providerSessionId, 'a second, separate child');
});

test('fork_session with an unknown turn fails at source_lookup before any mutation', async () => {
  const error = await requestError(
    rig.sidecar.request('fork_session', {
      providerSessionId: sourceSessionId,
      providerTurnId: randomUUID(),
      cwd: rig.home.cwd,
    }),
  );
  assert.equal(error.stage, 'source_lookup');
  assert.equal(error.deliveryDisposition, 'not_started');
  assert.match(error.message, /^Claude SDK session fork failed at source_lookup: /);
});

test('recover_turn_binding finds a turn by its opaque token', async () => {
  const [, second] = providerTurnIds;
  assert.ok(second, 'precondition: the second source turn was bound');
  const recovered = await rig.sidecar.request<RecoverTurnBindingResult>('recover_turn_binding', {
    providerSessionId: sourceSessionId,
    cwd: rig.home.cwd,
    recoveryToken: second,
  });
  assert.deepEqual(recovered, {
    providerSessionId: sourceSessionId,
    providerTurnId: second,
    providerCheckpointMessageId: lastAssistantOfTurn(sourceSessionId, second),
  });
});

test('recover_turn_binding finds a turn by the legacy HMAC of its exact prompt text', async () => {
  const [first] = providerTurnIds;
  assert.ok(first, 'precondition: the first source turn was bound');
  const recovered = await rig.sidecar.request<RecoverTurnBindingResult>('recover_turn_binding', {
    providerSessionId: sourceSessionId,
    cwd: rig.home.cwd,
    recoveryToken: '',
    ...legacyProof(TURN_ONE),
  });
  assert.deepEqual(recovered, {
    providerSessionId: sourceSessionId,
    providerTurnId: first,
    providerCheckpointMessageId: lastAssistantOfTurn(sourceSessionId, first),
  });
});

test('recover_turn_binding without a matching proof reports it absent', async () => {
  for (const proof of [{ recoveryToken: randomUUID() }, { recoveryToken: '', ...legacyProof('never sent') }]) {
    const error = await requestError(
      rig.sidecar.request('recover_turn_binding', {
        providerSessionId: sourceSessionId,
        cwd: rig.home.cwd,
        ...proof,
      }),
    );
    assert.equal(error.message, 'Claude provider turn recovery proof is absent');
  }
});

test('recover_turn_binding by HMAC of a prompt sent twice reports it ambiguous', async () => {
  const { sidecar } = rig;
  const repeat = await runTurn(sidecar, SOURCE_SESSION, TURN_ONE);
  assert.equal(repeat.terminal.type, 'turn_completed');
  const error = await requestError(
    sidecar.request('recover_turn_binding', {
      providerSessionId: sourceSessionId,
      cwd: rig.home.cwd,
      recoveryToken: '',
      ...legacyProof(TURN_ONE),
    }),
  );
  assert.equal(error.message, 'Claude provider turn recovery proof is ambiguous');
});

test('a session started on the forked child resumes with only the first turn in its history', async () => {
  assert.ok(fork, 'precondition: the fork succeeded');
  const { sidecar, mock } = rig;
  await sidecar.request('close', { agentSessionId: SOURCE_SESSION });
  const childId = fork.providerSessionId;
  const started = await sidecar.request<StartResult>('start', {
    agentSessionId: CHILD_SESSION,
    cwd: rig.home.cwd,
    restore: true,
    resumeCursor: { kind: 'claude-agent-sdk', version: 1, resume: childId, turnCount: 1 },
    permissionModeId: 'default',
  });
  assert.equal(started.providerSessionId, childId, 'the session runs on the child id');

  const before = mock.messageRequests().length;
  const { turnId, terminal } = await runTurn(sidecar, CHILD_SESSION, TURN_THREE);
  assert.equal(terminal.type, 'turn_completed');
  assert.equal(assistantTextOf(sidecar.events, turnId), `Answer to: ${TURN_THREE}`);
  const sent = mock
    .messageRequests()
    .slice(before)
    .map((request) => JSON.stringify(request.body));
  assert.ok(sent.length > 0, 'the resumed child called the model');
  for (const body of sent) {
    assert.ok(body.includes('TURN-ONE alpha'), "the child's history carries turn 1");
    assert.ok(body.includes(`Answer to: ${TURN_ONE}`), "the child's history carries turn 1's answer");
    assert.ok(!body.includes('TURN-TWO beta'), "the child's history stops before turn 2");
    assert.ok(!body.includes(`Answer to: ${TURN_TWO}`), "the child's history has no answer of turn 2");
  }

  const childTurn = providerTurnIdOf(sidecar.events, turnId);
  const inspected = await sidecar.request<InspectForkCheckpointsResult>('inspect_fork_checkpoints', {
    providerSessionId: childId,
    cwd: rig.home.cwd,
  });
  assert.deepEqual(
    inspected.providerTurnIds,
    [fork.targetProviderTurnBindings[0]?.providerTurnId, childTurn],
    'the child transcript holds the forked turn, then the new one',
  );
  assert.deepEqual(sidecar.protocolErrors, [], 'every event matches the protocol schemas');
  assert.deepEqual(mock.unmatched, [], 'mock-anthropic answered every model request');
});

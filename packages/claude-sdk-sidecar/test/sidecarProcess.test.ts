import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  type MockAnthropic,
  type MockReply,
  type MockRule,
  startMockAnthropic,
  type ToolResultView,
} from '@outrigger/mock-anthropic';
import { type ClaudeTestHome, createClaudeTestHome } from '@outrigger/mock-anthropic/testing';
import {
  type CancelResult,
  type InteractiveResult,
  isTurnTerminalEventType,
  type SidecarEvent,
} from '@outrigger/protocol';
import { pollUntil, youngestChild } from '../src/testing/processTree.ts';
import { type SpawnedSidecar, spawnSidecar } from '../src/testing/spawnSidecar.ts';
import { isTerminalOf, TURN_OUTPUT_EVENT_TYPES } from '../src/testing/turnEvents.ts';

/*
 * The real sidecar process (the built `dist/main.js`, as hosts run it) over stdio, running the real Claude
 * Code binary against mock-anthropic. One sidecar and one session serve every case, in order, so at most one
 * Claude Code process runs at a time.
 */

const SESSION = 'real-session';
const STREAMED_ANSWER = 'The answer is forty-two, streamed in pieces.';
const TODOS = [
  { content: 'Write the tests', status: 'in_progress', activeForm: 'Writing the tests' },
  { content: 'Ship it', status: 'pending', activeForm: 'Shipping it' },
];
/** Everything of a turn that must follow its provider_turn_identity_resolved. */
const OUTPUT_EVENTS: ReadonlySet<string> = new Set([
  ...TURN_OUTPUT_EVENT_TYPES,
  'plan_updated',
  'approval_requested',
  'user_input_requested',
  'usage_updated',
]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** Model requests of the auth-fail prompt, the first and any retry of Claude Code's. */
let authAttempts = 0;

/** Asks for the Bash command `command` ("make a file"); once it ran, answers with `replyPrefix` and its output. */
function bashThenReply(results: readonly ToolResultView[], command: string, replyPrefix: string): MockReply {
  const bash = results.find((result) => result.toolName === 'Bash');
  return bash
    ? { content: [{ type: 'text', text: `${replyPrefix}${bash.content}` }] }
    : {
        content: [{ type: 'tool_use', name: 'Bash', input: { command, description: 'make a file' } }],
        stopReason: 'tool_use',
      };
}

const rules: MockRule[] = [
  (request) => {
    const text = request.lastUserText;
    const results = request.toolResults;
    if (text.includes('stream-answer')) return { content: [{ type: 'text', text: STREAMED_ANSWER, chunkSize: 6 }] };
    if (text.includes('todo-plan')) {
      return results.some((result) => result.toolName === 'TodoWrite')
        ? { content: [{ type: 'text', text: 'Plan recorded.' }] }
        : { content: [{ type: 'tool_use', name: 'TodoWrite', input: { todos: TODOS } }], stopReason: 'tool_use' };
    }
    if (text.includes('run-bash')) {
      return bashThenReply(results, 'touch bypass-proof.txt && echo made-under-bypass', 'Bash said: ');
    }
    if (text.includes('long-tool')) {
      return results.length > 0
        ? { content: [{ type: 'text', text: 'long tool done' }] }
        : {
            content: [
              {
                type: 'tool_use',
                name: 'Bash',
                input: { command: 'python3 -c "import time; time.sleep(1)"; echo slept', description: 'wait' },
              },
            ],
            stopReason: 'tool_use',
          };
    }
    if (text.includes('needs-approval')) {
      return bashThenReply(results, 'touch approved.txt && echo approved-run', 'Approved run said: ');
    }
    if (text.includes('auth-fail')) {
      authAttempts += 1;
      // Only the first attempt is answered: a sidecar that waited for the SDK's retries would wait forever.
      if (authAttempts > 1) return { stall: true };
      return { error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } };
    }
    if (text.includes('slow-stream')) {
      return { content: [{ type: 'text', text: 'slow '.repeat(200), chunkSize: 5, chunkDelayMs: 100 }] };
    }
    return { content: [{ type: 'text', text: `Plain answer to: ${text.slice(0, 40)}` }] };
  },
];

let mock: MockAnthropic;
let home: ClaudeTestHome;
let sidecar: SpawnedSidecar;
let providerSessionId = '';

before(async () => {
  mock = await startMockAnthropic({ rules });
  home = await createClaudeTestHome({
    baseUrl: mock.url,
    env: { CLAUDE_CODE_ENABLE_TODO_TOOLS: '1', CLAUDE_CODE_ENABLE_TASKS: '0', IS_SANDBOX: '1' },
  });
  sidecar = await spawnSidecar({ env: home.env, cwd: home.cwd, requestTimeoutMs: 60_000 });
  const started = await sidecar.request<{ providerSessionId: string }>('start', {
    agentSessionId: SESSION,
    cwd: home.cwd,
    permissionModeId: 'bypassPermissions',
  });
  providerSessionId = started.providerSessionId;
});

after(async () => {
  await sidecar?.stop();
  await mock?.close();
  await home?.cleanup();
});

async function runTurn(prompt: string, fields: Record<string, unknown> = {}) {
  const turnId = `turn-${randomUUID()}`;
  const from = sidecar.events.length;
  await sidecar.request('exec', { agentSessionId: SESSION, turnId, prompt, ...fields });
  const terminal = await sidecar.waitForEvent(isTerminalOf(turnId), {
    fromIndex: from,
    timeoutMs: 60_000,
    description: `the terminal event of "${prompt}"`,
  });
  return { turnId, terminal, events: turnEvents(from, turnId) };
}

function turnEvents(from: number, turnId: string): SidecarEvent[] {
  return sidecar.events
    .slice(from)
    .filter((event) => 'turnId' in event.payload && (event.payload as { turnId?: unknown }).turnId === turnId);
}

function assertIdentityFirst(events: SidecarEvent[]): string {
  const identityIndex = events.findIndex((event) => event.type === 'provider_turn_identity_resolved');
  const firstOutput = events.findIndex((event) => OUTPUT_EVENTS.has(event.type));
  assert.ok(identityIndex >= 0, 'provider_turn_identity_resolved was published');
  assert.ok(firstOutput > identityIndex, 'identity precedes every output event of the turn');
  const identity = events[identityIndex];
  assert.ok(identity?.type === 'provider_turn_identity_resolved');
  return identity.payload.providerTurnId;
}

/** Claude Code appends to the transcript asynchronously, so a row is awaited (bounded) rather than expected at once. */
async function transcriptRow(
  predicate: (row: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown> | undefined> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const row = transcriptRows().find(predicate);
    if (row || Date.now() > deadline) return row;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function transcriptRows(): Record<string, unknown>[] {
  const projects = join(home.configDir, 'projects');
  for (const project of readdirSync(projects)) {
    const file = join(projects, project, `${providerSessionId}.jsonl`);
    if (existsSync(file)) {
      return readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line));
    }
  }
  throw new Error(`no transcript for ${providerSessionId} under ${projects}`);
}

test('start → exec → a streamed answer, with identity first and equal to the transcript root uuid', async () => {
  const correlation = randomUUID();
  const { terminal, events } = await runTurn('stream-answer please', { promptCorrelationId: correlation });
  assert.equal(terminal.type, 'turn_completed');
  const providerTurnId = assertIdentityFirst(events);
  assert.equal(terminal.payload.providerTurnId, providerTurnId);

  const deltas = events.filter((event) => event.type === 'assistant_delta');
  assert.ok(deltas.length > 1, 'the answer arrived in several deltas');
  const last = deltas.at(-1);
  assert.ok(last?.type === 'assistant_delta');
  assert.equal(last.payload.snapshot, STREAMED_ANSWER);

  const root = await transcriptRow((row) => row.type === 'user' && row.uuid === providerTurnId);
  assert.ok(root, 'the bound provider Turn id is the root user message uuid in the JSONL transcript');
  assert.equal(providerTurnId, correlation, 'Claude Code kept the uuid of a prompt sent while idle');
  assert.deepEqual(sidecar.protocolErrors, [], 'every event matches the protocol schemas');
});

test('a TodoWrite turn publishes the plan, a hook result and then exactly one canonical result', async () => {
  const { terminal, events } = await runTurn('todo-plan now');
  assert.equal(terminal.type, 'turn_completed');
  assertIdentityFirst(events);
  const plan = events.find((event) => event.type === 'plan_updated');
  assert.ok(plan?.type === 'plan_updated');
  assert.deepEqual(
    plan.payload.entries.map((entry) => [entry.content, entry.status]),
    TODOS.map((todo) => [todo.content, todo.status]),
  );
  const started = events.find((event) => event.type === 'tool_started' && event.payload.toolName === 'TodoWrite');
  assert.ok(started?.type === 'tool_started');
  const completions = events.filter(
    (event) => event.type === 'tool_completed' && event.payload.toolCallId === started.payload.toolCallId,
  );
  const sources = completions.map((event) =>
    event.type === 'tool_completed' ? (event.payload.metadata as { resultSource?: unknown }).resultSource : undefined,
  );
  assert.deepEqual(sources, ['hook', 'canonical']);
});

test('a Bash call runs without approval under bypassPermissions', async () => {
  const { terminal, events } = await runTurn('run-bash for me');
  assert.equal(terminal.type, 'turn_completed');
  assert.equal(events.filter((event) => event.type === 'approval_requested').length, 0);
  const bash = events.find((event) => event.type === 'tool_completed' && event.payload.toolName === 'Bash');
  assert.ok(bash, 'the Bash call completed');
  assert.ok(existsSync(join(home.cwd, 'bypass-proof.txt')), 'the command really ran in the session cwd');
  const answer = events.find((event) => event.type === 'assistant_completed');
  assert.ok(answer?.type === 'assistant_completed');
  assert.match(answer.payload.content, /made-under-bypass/);
});

test('an exec sent while a turn runs a tool becomes its own turn, never folded into the running one', async () => {
  const first = `turn-${randomUUID()}`;
  const second = `turn-${randomUUID()}`;
  const from = sidecar.events.length;
  const requestsBefore = mock.messageRequests().length;
  await sidecar.request('exec', { agentSessionId: SESSION, turnId: first, prompt: 'long-tool first' });
  await sidecar.waitForEvent((event) => event.type === 'tool_started' && event.payload.turnId === first, {
    fromIndex: from,
    timeoutMs: 60_000,
    description: 'the running tool of the first turn',
  });
  await sidecar.request('exec', { agentSessionId: SESSION, turnId: second, prompt: 'queued second' });
  for (const turnId of [first, second]) {
    await sidecar.waitForEvent(isTerminalOf(turnId), {
      fromIndex: from,
      timeoutMs: 60_000,
      description: `the terminal of ${turnId}`,
    });
  }
  const firstEvents = turnEvents(from, first);
  const secondEvents = turnEvents(from, second);
  // The context-usage snapshot follows a turn's terminal asynchronously, so the terminal need not come last.
  const terminalTypes = (events: SidecarEvent[]) =>
    events.filter((event) => isTurnTerminalEventType(event.type)).map((event) => event.type);
  assert.deepEqual(terminalTypes(firstEvents), ['turn_completed']);
  assert.deepEqual(terminalTypes(secondEvents), ['turn_completed']);
  const firstId = assertIdentityFirst(firstEvents);
  const secondId = assertIdentityFirst(secondEvents);
  assert.notEqual(firstId, secondId);
  const answer = secondEvents.find((event) => event.type === 'assistant_completed');
  assert.ok(answer?.type === 'assistant_completed');
  assert.match(answer.payload.content, /queued second/);
  // Folded, the second prompt would ride along with the first turn's tool result: [false, true].
  const carriesSecond = mock
    .messageRequests()
    .slice(requestsBefore)
    .map((request) => JSON.stringify(request.body).includes('queued second'));
  assert.deepEqual(carriesSecond, [false, false, true], "the first turn's two requests, then the second turn");
});

test('a 401 fails the turn at once as an authentication rejection, without waiting for the retries', async () => {
  let attemptsAtTerminal: number | undefined;
  const stopWatching = sidecar.client.onEvent((event) => {
    if (event.type === 'turn_failed' && attemptsAtTerminal === undefined) attemptsAtTerminal = authAttempts;
  });
  try {
    const { terminal } = await runTurn('auth-fail here');
    assert.ok(terminal.type === 'turn_failed', `the turn failed: ${JSON.stringify(terminal.payload)}`);
    assert.deepEqual(terminal.payload, {
      turnId: terminal.payload.turnId,
      error: 'Claude API rejected the credentials (HTTP 401 authentication_failed)',
      code: 'authentication_failed',
      apiErrorStatus: 401,
      dispatchDisposition: 'rejected',
      agentSessionId: SESSION,
    });
  } finally {
    stopWatching();
  }
  // Every retry stalls, so the terminal cannot have come from a retry completing; at most one had been sent.
  assert.ok(
    attemptsAtTerminal === 1 || attemptsAtTerminal === 2,
    `the first 401 and at most one (stalled) retry by the time turn_failed arrived; got ${attemptsAtTerminal}`,
  );
});

test('a Claude Code child killed mid-turn fails the turn, and the next exec resumes the session', async () => {
  const turnId = `turn-${randomUUID()}`;
  const from = sidecar.events.length;
  await sidecar.request('exec', { agentSessionId: SESSION, turnId, prompt: 'slow-stream now' });
  await sidecar.waitForEvent((event) => event.type === 'assistant_delta' && event.payload.turnId === turnId, {
    fromIndex: from,
    timeoutMs: 60_000,
    description: 'the first delta of the slow stream',
  });
  const claude = youngestChild(sidecar.pid, 'claude');
  assert.ok(claude, 'the sidecar has a Claude Code child');
  process.kill(claude, 'SIGKILL');
  const terminal = await sidecar.waitForEvent(isTerminalOf(turnId), {
    fromIndex: from,
    timeoutMs: 30_000,
    description: 'the terminal of the killed turn',
  });
  assert.ok(terminal.type === 'turn_failed');
  assert.match(terminal.payload.error, /^Claude Code process exited unexpectedly \((code|signal) \w+\)$/);

  const requestsBefore = mock.messageRequests().length;
  const { terminal: next } = await runTurn('after the crash');
  assert.equal(next.type, 'turn_completed');
  const resumed = mock.messageRequests().slice(requestsBefore);
  assert.ok(
    resumed.some((request) => JSON.stringify(request.body).includes('stream-answer please')),
    'the new Query resumed the session history',
  );
});

test('cancel mid-stream interrupts the real child and ends the turn canceled before answering', async () => {
  const turnId = `turn-${randomUUID()}`;
  const from = sidecar.events.length;
  await sidecar.request('exec', { agentSessionId: SESSION, turnId, prompt: 'slow-stream to cancel' });
  await sidecar.waitForEvent((event) => event.type === 'assistant_delta' && event.payload.turnId === turnId, {
    fromIndex: from,
    timeoutMs: 60_000,
    description: 'the first delta of the stream to cancel',
  });
  const result = await sidecar.request<CancelResult>('cancel', {
    agentSessionId: SESSION,
    turnId,
    interruptTimeoutMs: 10_000,
    drainTimeoutMs: 8_000,
  });
  const events = turnEvents(from, turnId);
  const identity = events.find((event) => event.type === 'provider_turn_identity_resolved');
  assert.ok(identity?.type === 'provider_turn_identity_resolved');
  assert.deepEqual(result, {
    canceled: true,
    disposition: 'provider_active',
    turnId,
    providerTurnId: identity.payload.providerTurnId,
    dispatchPhase: 'streaming',
    queryRetired: true,
  });
  const terminals = events.filter((event) => isTurnTerminalEventType(event.type));
  assert.deepEqual(
    terminals.map((event) => event.type),
    ['turn_canceled'],
    'exactly one terminal, published before the cancel answered',
  );
  // stderr is a separate pipe from stdout, so the diagnostics may still be in flight when the ok arrives.
  const cancelStages = () =>
    sidecar.diagnostics('CLAUDE_CODE_CANCEL_DIAGNOSTIC').map((diagnostic) => diagnostic.record.stage);
  const stages = await pollUntil(
    () => (cancelStages().includes('cancel_succeeded') ? cancelStages() : undefined),
    'the cancel diagnostics reach stderr',
    10_000,
  );
  assert.ok(stages.includes('interrupt_succeeded') && stages.includes('shutdown_succeeded'), stages.join(','));
});

test('in default mode a Bash call asks for approval after the identity, and runs once allowed', async () => {
  await sidecar.request('apply_settings', { agentSessionId: SESSION, permissionMode: 'default' });
  const turnId = `turn-${randomUUID()}`;
  const from = sidecar.events.length;
  await sidecar.request('exec', { agentSessionId: SESSION, turnId, prompt: 'needs-approval please' });
  const asked = await sidecar.waitForEvent(
    (event) => event.type === 'approval_requested' && event.payload.turnId === turnId,
    { fromIndex: from, timeoutMs: 60_000, description: 'the approval request' },
  );
  assert.ok(asked.type === 'approval_requested');
  assert.equal(asked.payload.toolName, 'Bash');
  assertIdentityFirst(turnEvents(from, turnId));
  const answer = await sidecar.request<InteractiveResult>('submit_interactive', {
    agentSessionId: SESSION,
    turnId,
    requestId: asked.payload.requestId,
    action: 'allow',
    optionId: 'allow',
    payload: {},
  });
  assert.deepEqual(answer, { disposition: 'answered', replayed: false });
  const terminal = await sidecar.waitForEvent(isTerminalOf(turnId), {
    fromIndex: from,
    timeoutMs: 60_000,
    description: 'the terminal of the approved turn',
  });
  assert.equal(terminal.type, 'turn_completed');
  assert.ok(existsSync(join(home.cwd, 'approved.txt')), 'the approved command ran');
});

test('malformed and oversized lines are answered with errors and the process keeps serving', async () => {
  const from = sidecar.events.length;
  const oversized = `{"version":10,"id":"huge","type":"exec","payload":{"pad":"${'x'.repeat(17 * 1024 * 1024)}"}}`;
  sidecar.writeLines(['{"version":10,', oversized]);
  const errors = () => sidecar.events.slice(from).filter((event) => event.type === 'error');
  await sidecar.waitForEvent((event) => event.type === 'error' && /exceeds/.test(event.payload.error), {
    fromIndex: from,
    timeoutMs: 10_000,
    description: 'the oversized-line error',
  });
  assert.deepEqual(
    errors().map((event) => (event.type === 'error' ? event.payload.error : '')),
    [
      'sidecar request is not valid JSON',
      `sidecar request line of ${Buffer.byteLength(oversized)} bytes exceeds the size limit and was discarded`,
    ],
  );
  const { terminal } = await runTurn('still alive?');
  assert.equal(terminal.type, 'turn_completed');
});

test('every checkpoint of a completed turn is a transcript uuid of that turn; the identity is its root user uuid', async () => {
  const completed = sidecar.events.flatMap((event) =>
    event.type === 'turn_completed' && event.payload.providerTurnId
      ? [{ turnId: event.payload.turnId, providerTurnId: event.payload.providerTurnId }]
      : [],
  );
  assert.ok(completed.length >= 5, 'precondition: the earlier cases completed their turns');
  const checkpointsOf = (turnId: string) =>
    sidecar.events.flatMap((event) =>
      event.type === 'provider_turn_checkpoint' && event.payload.turnId === turnId ? [event.payload] : [],
    );
  const allCheckpoints = completed.flatMap(({ turnId }) =>
    checkpointsOf(turnId).map((checkpoint) => checkpoint.providerCheckpointMessageId),
  );
  // Claude Code appends to the transcript asynchronously: wait (bounded) until every checkpoint is written.
  await transcriptRow(() => {
    const uuids = new Set(transcriptRows().map((row) => row.uuid));
    return allCheckpoints.every((uuid) => uuids.has(uuid));
  });
  const rows = transcriptRows();
  const rowIndex = (uuid: string) => rows.findIndex((row) => row.uuid === uuid);
  const roots = completed.map(({ providerTurnId }) => rowIndex(providerTurnId)).sort((a, b) => a - b);
  for (const { turnId, providerTurnId } of completed) {
    const root = rowIndex(providerTurnId);
    assert.ok(root >= 0, `the identity ${providerTurnId} of ${turnId} is a transcript row`);
    assert.ok(isPromptRow(rows[root]), `the identity ${providerTurnId} of ${turnId} is a root user prompt row`);
    const nextRoot = roots.find((index) => index > root) ?? rows.length;
    const checkpoints = checkpointsOf(turnId);
    assert.ok(checkpoints.length > 0, `turn ${turnId} published checkpoints`);
    for (const checkpoint of checkpoints) {
      const id = checkpoint.providerCheckpointMessageId;
      assert.equal(checkpoint.providerTurnId, providerTurnId, `checkpoint ${id} names the turn's identity`);
      assert.match(id, UUID, `checkpoint ${id} of ${turnId} is a uuid`);
      const at = rowIndex(id);
      assert.ok(
        at >= root && at < nextRoot,
        `checkpoint ${id} of ${turnId} is in its transcript span (${root}..${nextRoot}); at ${at}`,
      );
    }
  }
});

test('the stateless inspect_fork_checkpoints lists the provider turns of every completed turn', async () => {
  // A turn whose child was SIGKILLed may never have reached the transcript; completed turns always have.
  const completed = sidecar.events.flatMap((event) =>
    event.type === 'turn_completed' && event.payload.providerTurnId ? [event.payload.providerTurnId] : [],
  );
  const result = await sidecar.request<{ providerTurnIds: string[] }>('inspect_fork_checkpoints', {
    providerSessionId,
    cwd: home.cwd,
  });
  assert.ok(completed.length >= 5);
  assert.equal(result.providerTurnIds[0], completed[0], 'the first turn is the first root of the transcript');
  for (const providerTurnId of completed) assert.ok(result.providerTurnIds.includes(providerTurnId), providerTurnId);
});

test('close answers ok and the end of input exits 0 without stray stdout', async () => {
  await sidecar.request('close', { agentSessionId: SESSION });
  assert.deepEqual(await sidecar.stop(), { code: 0, signal: null });
  assert.deepEqual(sidecar.protocolErrors, [], 'stdout carried protocol lines only');
  assert.deepEqual(mock.unmatched, []);
  const leaked = sidecar.stderrLines.filter((line) =>
    /stream-answer|todo-plan|run-bash|Write the tests|sk-ant/.test(line),
  );
  assert.deepEqual(leaked, [], 'no prompt, tool input or credential reaches stderr');
});

/** A user row that carries a prompt, not a tool result. */
function isPromptRow(row: Record<string, unknown> | undefined): boolean {
  if (row?.type !== 'user') return false;
  const content = (row.message as { content?: unknown } | undefined)?.content;
  if (typeof content === 'string') return true;
  return Array.isArray(content) && content.every((block) => (block as { type?: unknown })?.type !== 'tool_result');
}

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { getSessionInfo, getSessionMessages } from '@anthropic-ai/claude-agent-sdk';
import { type MockRule, viewMessagesRequest } from '@outrigger/mock-anthropic';
import type { SessionSnapshot, SidecarEvent, StartResult } from '@outrigger/protocol';
import {
  assistantTextOf,
  type ContinuityRig,
  type ExecutedTurn,
  eventsOfTurn,
  onlyTerminalOf,
  runTurn,
  startBypassSession,
  startContinuityRig,
} from './continuityHarness.ts';

/*
 * What a host keeps about a session between turns and across sidecar restarts, through the real sidecar
 * process, the real Claude Code binary and mock-anthropic: the model option, usage and the context window,
 * the resume cursor after each settle (and a restore from it), the session title and `/compact`.
 * The cases build on each other in order on one sidecar; at most one Claude Code child runs at a time
 * (the first session is closed before the restored one starts).
 */

const FIRST = 'first-session';
const RESTORED = 'restored-session';
const PROMPT_ONE = 'ALPHA the first prompt of the session';
const PROMPT_TWO = 'BETA the second prompt';
const PROMPT_THREE = 'GAMMA the third prompt, on another model';
const PROMPT_FOUR = 'DELTA the first prompt after the restore';
const PROMPT_FIVE = 'EPSILON the first prompt after compaction';
const SCRIPTED_USAGE = { input_tokens: 1234, output_tokens: 56 };
/** Claude Code's summary request for `/compact` asks for this (observed in the recorded request). */
const SUMMARY_REQUEST = 'create a detailed summary of the conversation';
const SUMMARY = 'SUMMARY-MARKER the user sent ALPHA, BETA, GAMMA and DELTA.';
const COMPACT_ERROR = 'summary request refused by the scripted model';

/** Whether the next summary request is refused, so compaction fails. */
let refuseSummary = false;

const rules: MockRule[] = [
  (request) => {
    if (request.lastUserText.includes(SUMMARY_REQUEST)) {
      if (refuseSummary) return { error: { status: 400, message: COMPACT_ERROR } };
      return { content: [{ type: 'text', text: `<analysis>Short.</analysis>\n<summary>${SUMMARY}</summary>` }] };
    }
    const prompt = [PROMPT_ONE, PROMPT_TWO, PROMPT_THREE, PROMPT_FOUR, PROMPT_FIVE].find((candidate) =>
      request.lastUserText.includes(candidate),
    );
    if (prompt) return { content: [{ type: 'text', text: `Answer to: ${prompt}` }], usage: SCRIPTED_USAGE };
    return undefined;
  },
];

let rig: ContinuityRig;
let providerSessionId = '';
let previousConfigDir: string | undefined;
/** The `/compact` turns, failed then successful. */
let failedCompactTurn: ExecutedTurn | undefined;
let compactTurn: ExecutedTurn | undefined;
/** The cursor the first session published after its last settle: what a host would persist. */
let persistedCursor: SessionSnapshot['resumeCursor'] | undefined;

before(async () => {
  rig = await startContinuityRig({ rules });
  // getSessionInfo and getSessionMessages read the config dir of the calling process.
  previousConfigDir = process.env.CLAUDE_CONFIG_DIR;
  process.env.CLAUDE_CONFIG_DIR = rig.home.configDir;
});

after(async () => {
  if (previousConfigDir === undefined) delete process.env.CLAUDE_CONFIG_DIR;
  else process.env.CLAUDE_CONFIG_DIR = previousConfigDir;
  await rig?.dispose([FIRST, RESTORED]);
});

function snapshotOf(event: SidecarEvent): SessionSnapshot | undefined {
  return event.type === 'session_state' || event.type === 'session_started' ? event.payload : undefined;
}

function modelOptionOf(snapshot: SessionSnapshot) {
  const option = snapshot.configOptions?.find((candidate) => candidate.id === 'model');
  assert.ok(option, `the snapshot carries the model option; got ${JSON.stringify(snapshot.configOptions)}`);
  return option;
}

/** The `session_state` published right after a turn settled (before anything the next request causes). */
async function stateAfterSettle(turn: ExecutedTurn): Promise<SessionSnapshot> {
  const terminalAt = rig.sidecar.events.indexOf(turn.terminal);
  assert.ok(terminalAt >= 0, 'the terminal event was recorded');
  const state = await rig.sidecar.waitForEvent((event) => event.type === 'session_state', {
    fromIndex: terminalAt + 1,
    timeoutMs: 10_000,
    description: `the session_state after the settle of ${turn.turnId}`,
  });
  assert.ok(state.type === 'session_state');
  return state.payload;
}

function usageEventsOf(turnId: string) {
  return eventsOfTurn(rig.sidecar.events, turnId).flatMap((event) =>
    event.type === 'usage_updated' ? [event.payload] : [],
  );
}

/**
 * The turn's context-window snapshot. The sidecar reads it once the session has gone quiet after the
 * result (no new prompt within the quiet period), so it follows the turn's terminal event.
 */
async function contextWindowOf(turnId: string) {
  const event = await rig.sidecar.waitForEvent(
    (candidate) =>
      candidate.type === 'usage_updated' &&
      candidate.payload.turnId === turnId &&
      candidate.payload.contextWindow !== undefined,
    { timeoutMs: 15_000, description: `usage_updated with contextWindow for ${turnId}` },
  );
  assert.ok(event.type === 'usage_updated' && event.payload.contextWindow);
  const { events } = rig.sidecar;
  assert.ok(
    events.indexOf(onlyTerminalOf(events, turnId)) < events.indexOf(event),
    "the snapshot follows the turn's terminal event",
  );
  return event.payload.contextWindow;
}

/** The titles published for the provider session by events in [from, to). */
function titlesBetween(from = 0, to = rig.sidecar.events.length): string[] {
  return rig.sidecar.events
    .slice(from, to)
    .flatMap((event) =>
      event.type === 'session_title_updated' && event.payload.providerSessionId === providerSessionId
        ? [event.payload.title]
        : [],
    );
}

/** The title Claude Code itself keeps for the session, as getSessionInfo reads it (customTitle, else summary). */
async function sdkTitle(): Promise<string | undefined> {
  const info = await getSessionInfo(providerSessionId, { dir: rig.home.cwd });
  return (info?.customTitle || info?.summary)?.replace(/\s+/g, ' ').trim();
}

/** The uuid of the transcript's last root assistant message: where a resume must continue from. */
async function lastAssistantUuid(): Promise<string | undefined> {
  const messages = await getSessionMessages(providerSessionId, { dir: rig.home.cwd });
  return messages.filter((message) => message.type === 'assistant').at(-1)?.uuid;
}

/** The turn id that carried an answer to `prompt`. */
function turnIdAnswering(prompt: string): string {
  const answer = rig.sidecar.events.find(
    (event) => event.type === 'assistant_completed' && event.payload.content === `Answer to: ${prompt}`,
  );
  assert.ok(answer?.type === 'assistant_completed', `an answer to "${prompt}" was published`);
  return answer.payload.turnId;
}

function requestModelsSince(from: number): unknown[] {
  return rig.mock
    .messageRequests()
    .slice(from)
    .map((request) => (request.body as { model?: unknown } | undefined)?.model);
}

test('session_started offers the model catalogue; after init the effective model is reported', async () => {
  const { sidecar, mock } = rig;
  const started = await startBypassSession<StartResult>(rig, FIRST);
  providerSessionId = started.providerSessionId;
  const startedEvent = sidecar.events.find((event) => event.type === 'session_started');
  assert.ok(startedEvent?.type === 'session_started', 'session_started was emitted before the start ok');
  assert.equal(startedEvent.payload.providerSessionId, providerSessionId);
  const offered = modelOptionOf(startedEvent.payload);
  assert.equal(offered.currentValue, 'default', 'no model was chosen at start');
  assert.equal(offered.type, 'select');
  assert.ok(
    offered.options.some((option) => option.value === 'default') && offered.options.length > 1,
    `the options are Claude Code's model list; got ${offered.options.map((option) => option.value)}`,
  );
  assert.deepEqual(startedEvent.payload.resumeCursor, {
    kind: 'claude-agent-sdk',
    version: 1,
    resume: providerSessionId,
    turnCount: 0,
  });

  const turn = await runTurn(sidecar, FIRST, PROMPT_ONE);
  assert.equal(turn.terminal.type, 'turn_completed');
  const [requestModel] = requestModelsSince(0);
  assert.equal(typeof requestModel, 'string', 'the first model request names its model');
  const reported = sidecar.events.find(
    (event) => snapshotOf(event)?.configOptions?.some((option) => option.effectiveValue) === true,
  );
  assert.ok(reported, 'a session_state reports the effective model once Claude Code initialised');
  const snapshot = snapshotOf(reported) as SessionSnapshot;
  assert.equal(modelOptionOf(snapshot).currentValue, 'default', 'the selection is still the default');
  assert.equal(modelOptionOf(snapshot).effectiveValue, requestModel, 'the effective model is the one called');
  assert.equal(snapshot.model, 'default', 'model carries the selection, never the effective model');
  assert.deepEqual(mock.unmatched, [], 'mock-anthropic answered every model request');

  // The root assistant message moved the resume position: a session_state said so before the turn settled.
  const assistantUuid = await lastAssistantUuid();
  assert.equal(typeof assistantUuid, 'string');
  const terminalAt = sidecar.events.indexOf(turn.terminal);
  const midTurn = sidecar.events
    .slice(turn.from, terminalAt)
    .find((event) => snapshotOf(event)?.resumeCursor.resumeSessionAt === assistantUuid);
  assert.ok(midTurn, 'a session_state with the new assistant uuid came before the terminal event');
});

test('usage_updated carries the streamed usage, then a context-window snapshot once the session is idle after each turn', async () => {
  const { sidecar } = rig;
  const firstTurnId = turnIdAnswering(PROMPT_ONE);
  const firstWindow = await contextWindowOf(firstTurnId);
  const streamed = usageEventsOf(firstTurnId).filter((payload) => payload.usage !== undefined);
  assert.ok(streamed.length >= 1, 'the message_delta usage is forwarded');
  const usage = streamed[0]?.usage as Record<string, unknown>;
  assert.equal(usage.output_tokens, SCRIPTED_USAGE.output_tokens, 'the streamed usage is the API usage as sent');
  assert.equal(usage.input_tokens, SCRIPTED_USAGE.input_tokens);
  assert.ok(
    usageEventsOf(firstTurnId).every((payload) => payload.modelUsage === undefined),
    'with a context snapshot available, the result-usage fallback is not used',
  );
  assert.equal(
    usageEventsOf(firstTurnId).filter((payload) => payload.contextWindow).length,
    1,
    'one context-window snapshot per turn the session went idle after',
  );
  assert.ok(Number.isInteger(firstWindow.usedTokens) && firstWindow.usedTokens > 0, 'usedTokens is counted');
  assert.ok(
    firstWindow.totalTokens !== undefined && firstWindow.totalTokens > firstWindow.usedTokens,
    `the window size exceeds what is used; got ${JSON.stringify(firstWindow)}`,
  );
  assert.equal(firstWindow.compactsAutomatically, true, 'auto-compact is on by default in Claude Code');

  const second = await runTurn(sidecar, FIRST, PROMPT_TWO);
  assert.equal(second.terminal.type, 'turn_completed');
  const secondWindow = await contextWindowOf(second.turnId);
  // Claude Code's snapshot right after a result may not count that turn's messages yet, so only no shrink.
  assert.ok(
    secondWindow.usedTokens >= firstWindow.usedTokens,
    `a longer history never uses less context: ${firstWindow.usedTokens} then ${secondWindow.usedTokens}`,
  );
  assert.equal(secondWindow.totalTokens, firstWindow.totalTokens, 'same model, same window');
});

test('session_state after each settle carries the resume cursor with the count of settled turns', async () => {
  const { sidecar } = rig;
  const settledAt = sidecar.events.flatMap((event, index) => (event.type === 'turn_completed' ? [index] : []));
  assert.equal(settledAt.length, 2, 'two turns have settled');
  const cursors = settledAt.map((index, position) => {
    const state = sidecar.events.slice(index + 1).find((event) => event.type === 'session_state');
    assert.ok(state?.type === 'session_state', `a session_state follows settle #${position + 1}`);
    return state.payload.resumeCursor;
  });
  for (const [position, cursor] of cursors.entries()) {
    assert.equal(cursor.kind, 'claude-agent-sdk');
    assert.equal(cursor.version, 1);
    assert.equal(cursor.resume, providerSessionId, 'the cursor resumes the provider session');
    assert.equal(cursor.turnCount, position + 1, 'turnCount counts the settled turns');
    assert.equal(typeof cursor.resumeSessionAt, 'string', 'the cursor names the last root assistant message');
  }
  assert.notEqual(cursors[0]?.resumeSessionAt, cursors[1]?.resumeSessionAt, 'each settle moves the position');
  const latest = [...sidecar.events].reverse().find((event) => event.type === 'session_state');
  assert.ok(latest?.type === 'session_state');
  assert.equal(
    latest.payload.resumeCursor.resumeSessionAt,
    await lastAssistantUuid(),
    "resumeSessionAt is the transcript's last assistant message",
  );
});

test('session_title_updated reports the title Claude Code keeps, once per change', async () => {
  const title = await sdkTitle();
  // Offline (no title generation request), Claude Code's summary is the session's first prompt.
  assert.equal(title, PROMPT_ONE, 'getSessionInfo names the session after its first prompt');
  assert.deepEqual(
    titlesBetween(),
    [title],
    'one title event after the first result; the unchanged title is not sent again after the second',
  );
  const prompts = rig.mock
    .messageRequests()
    .map((request, index) => viewMessagesRequest(request.body, index).lastUserText);
  assert.ok(
    prompts.every((text) => text.includes(PROMPT_ONE) || text.includes(PROMPT_TWO)),
    `every model request so far answers a prompt: no side request such as title generation; got ${JSON.stringify(prompts)}`,
  );
});

test('apply_settings {model} switches the model: the state shows the selection and the next request uses it', async () => {
  const { sidecar } = rig;
  const from = sidecar.events.length;
  const requestsBefore = rig.mock.messageRequests().length;
  await sidecar.request('apply_settings', { agentSessionId: FIRST, model: 'Sonnet' });
  const applied = sidecar.events.slice(from).find((event) => event.type === 'session_state');
  assert.ok(applied?.type === 'session_state', 'apply_settings is followed by session_state');
  const selected = modelOptionOf(applied.payload);
  assert.equal(selected.currentValue, 'sonnet', 'the display name resolves to the catalogue value');

  const turn = await runTurn(sidecar, FIRST, PROMPT_THREE);
  assert.equal(turn.terminal.type, 'turn_completed');
  const models = requestModelsSince(requestsBefore);
  assert.ok(models.length > 0, 'the turn called the model');
  const state = await stateAfterSettle(turn);
  const option = modelOptionOf(state);
  assert.equal(option.currentValue, 'sonnet');
  assert.equal(typeof option.effectiveValue, 'string', 'Claude Code reported the model it now runs');
  assert.match(String(option.effectiveValue), /sonnet/, 'the effective model is a Sonnet model');
  for (const model of models) assert.equal(model, option.effectiveValue, 'every request uses the resolved model');
  assert.equal(state.model, 'sonnet', 'model carries the selection');
  persistedCursor = state.resumeCursor;
  assert.equal(persistedCursor.turnCount, 3);
});

test('apply_settings and start refuse an effort Claude Code cannot run, naming the field', async () => {
  const { sidecar } = rig;
  const from = sidecar.events.length;
  await assert.rejects(sidecar.request('apply_settings', { agentSessionId: FIRST, effort: 'turbo' }), {
    name: 'SidecarRequestError',
    message: 'apply_settings effort must be one of low, medium, high, xhigh, max',
  });
  assert.deepEqual(
    sidecar.events.slice(from).filter((event) => event.type === 'session_state'),
    [],
    'a refused setting changes nothing',
  );
  await sidecar.request('apply_settings', { agentSessionId: FIRST, effort: 'high' });
  await assert.rejects(
    sidecar.request('start', { agentSessionId: 'effort-check', cwd: rig.home.cwd, effort: 'hgih' }),
    {
      message: 'start effort must be one of low, medium, high, xhigh, max',
    },
  );
});

test('a new sidecar session started with restore and the cursor continues the same provider session', async () => {
  assert.ok(persistedCursor, 'precondition: the first session published a cursor');
  const { sidecar, mock } = rig;
  await sidecar.request('close', { agentSessionId: FIRST }, { timeoutMs: 15_000 });
  const from = sidecar.events.length;
  const started = await sidecar.request<StartResult>('start', {
    agentSessionId: RESTORED,
    cwd: rig.home.cwd,
    restore: true,
    resumeCursor: persistedCursor,
    permissionModeId: 'bypassPermissions',
  });
  assert.equal(started.providerSessionId, providerSessionId, 'the provider session id is unchanged');
  const startedEvent = sidecar.events.slice(from).find((event) => event.type === 'session_started');
  assert.ok(startedEvent?.type === 'session_started');
  assert.deepEqual(startedEvent.payload.resumeCursor, persistedCursor, 'the restored session starts at the cursor');

  const requestsBefore = mock.messageRequests().length;
  const turn = await runTurn(sidecar, RESTORED, PROMPT_FOUR);
  assert.equal(turn.terminal.type, 'turn_completed');
  assert.equal(assistantTextOf(sidecar.events, turn.turnId), `Answer to: ${PROMPT_FOUR}`);
  const sent = mock
    .messageRequests()
    .slice(requestsBefore)
    .map((request) => JSON.stringify(request.body));
  assert.ok(sent.length > 0, 'the restored session called the model');
  for (const earlier of [PROMPT_ONE, PROMPT_TWO, PROMPT_THREE, `Answer to: ${PROMPT_THREE}`]) {
    assert.ok(
      sent.every((body) => body.includes(earlier)),
      `the resumed history carries "${earlier}"`,
    );
  }
  const cursor = (await stateAfterSettle(turn)).resumeCursor;
  assert.equal(cursor.resume, providerSessionId);
  assert.equal(cursor.turnCount, persistedCursor.turnCount + 1, 'the count goes on from the restored cursor');
  assert.notEqual(cursor.resumeSessionAt, persistedCursor.resumeSessionAt, 'the position moved to the new answer');
  assert.equal(cursor.resumeSessionAt, await lastAssistantUuid());
  assert.deepEqual(mock.unmatched, [], 'mock-anthropic answered every model request');
});

/** The compact_* events of a turn, and everything the turn's exec led to (for the failure message). */
function compactionOf(turn: ExecutedTurn) {
  const events = rig.sidecar.events.slice(turn.from);
  return {
    compaction: eventsOfTurn(events, turn.turnId).filter((event) => event.type.startsWith('compact_')),
    seen: events.map((event) => event.type).join(', '),
  };
}

test('/compact whose summary request fails ends in compact_failed with the reason', async () => {
  const { sidecar } = rig;
  refuseSummary = true;
  let turn: ExecutedTurn;
  try {
    turn = await runTurn(sidecar, RESTORED, '/compact');
  } finally {
    refuseSummary = false;
  }
  failedCompactTurn = turn;
  assert.equal(turn.terminal.type, 'turn_completed');
  // Claude Code answers a failed compaction with its reason as the turn's text.
  assert.ok(
    assistantTextOf(sidecar.events, turn.turnId).includes(COMPACT_ERROR),
    'precondition: Claude Code reported the failed compaction',
  );

  const { compaction, seen } = compactionOf(turn);
  assert.deepEqual(
    compaction.map((event) => event.type),
    ['compact_started', 'compact_failed'],
    `the /compact turn reports its start and its failure; saw ${seen}`,
  );
  const failed = compaction[1];
  assert.ok(failed?.type === 'compact_failed');
  assert.equal(failed.payload.turnId, turn.turnId);
  const reason = failed.payload.reason ?? '';
  assert.ok(reason.includes(COMPACT_ERROR), `the reason is the API's refusal; got "${reason}"`);
  assert.equal(failed.payload.content, `Compacting failed: ${reason}`);
});

test('/compact through exec reports compact_started then compact_completed', async () => {
  const { sidecar, mock } = rig;
  const turn = await runTurn(sidecar, RESTORED, '/compact');
  compactTurn = turn;
  assert.equal(turn.terminal.type, 'turn_completed');
  const requestsBefore = mock.messageRequests().length;
  const next = await runTurn(sidecar, RESTORED, PROMPT_FIVE);
  assert.equal(next.terminal.type, 'turn_completed');
  const body = JSON.stringify(mock.messageRequests()[requestsBefore]?.body);
  assert.ok(body.includes(SUMMARY), 'precondition: Claude Code compacted (the next request carries the summary)');
  assert.ok(!body.includes(`Answer to: ${PROMPT_ONE}`), 'precondition: the summarised turns left the history');

  const { compaction, seen } = compactionOf(turn);
  assert.deepEqual(
    compaction.map((event) => event.payload),
    [
      { turnId: turn.turnId, content: 'Compacting...', agentSessionId: RESTORED },
      { turnId: turn.turnId, content: 'Compacting completed.', agentSessionId: RESTORED },
    ],
    `the /compact turn reports compact_started then compact_completed, once each; saw ${seen}`,
  );
  assert.deepEqual(
    compaction.map((event) => event.type),
    ['compact_started', 'compact_completed'],
  );
});

test('a successful /compact publishes no output of an earlier turn', async () => {
  assert.ok(failedCompactTurn && compactTurn, 'precondition: both /compact turns ran');
  const earlier = assistantTextOf(rig.sidecar.events, failedCompactTurn.turnId);
  assert.ok(earlier.includes(COMPACT_ERROR), "precondition: the failed compaction's text was published");
  // Claude Code re-sends messages it keeps across the compact boundary (same uuid); they are history, not output.
  assert.equal(
    assistantTextOf(rig.sidecar.events, compactTurn.turnId),
    '',
    'the successful compaction has no answer of its own',
  );
});

test('each sidecar session reports the title Claude Code keeps, and only when it changes', async () => {
  const { sidecar } = rig;
  const restoredFrom = sidecar.events.findIndex(
    (event) => event.type === 'session_started' && event.payload.resumeCursor.turnCount > 0,
  );
  assert.ok(restoredFrom > 0, 'precondition: the restored session started');
  const current = await sdkTitle();
  assert.ok(current, 'Claude Code keeps a title for the session');
  // The title is read after each result without blocking the turn, so the last read may still be on its way.
  await sidecar.waitForEvent((event) => event.type === 'session_title_updated' && event.payload.title === current, {
    fromIndex: restoredFrom,
    timeoutMs: 10_000,
    description: `session_title_updated "${current}"`,
  });
  const first = titlesBetween(0, restoredFrom);
  for (const titles of [first, titlesBetween(restoredFrom)]) {
    for (let i = 1; i < titles.length; i++) {
      assert.notEqual(titles[i], titles[i - 1], `a title event repeats the previous title: ${JSON.stringify(titles)}`);
    }
  }
  assert.equal(first[0], PROMPT_ONE, 'the first session was titled after its first prompt');
});

import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import { test } from 'node:test';
import type {
  AnswerInteractionBody,
  HostClient,
  Interaction,
  MessageView,
  SseFrame,
  ToolUseBlock,
} from '@outrigger/host-api';
import type { MockReply } from '@outrigger/mock-anthropic';
import { bashCall, caseScripts, text } from '../src/sessions/testing/scriptedModel.ts';
import { isDoneOf, lastSeqOf, readEventsUntil } from './harness/sseReader.ts';
import { startTestHost } from './harness/testHost.ts';

/*
 * How a call ended and what the person decided, over HTTP with the real sidecar and Claude Code: the call a
 * live client folds from the stream (`tool_use`, and `tool_result` with the stored call) is exactly the
 * call a client reads after a reload (`GET …/messages`). And Claude Code's heartbeats of a tool that runs
 * 30 s without output move that call's elapsed time; they are never calls of their own.
 */

/** Posts `prompt`, answers each interaction with `answer(interaction)`, reads the stream to the turn's `done`. */
async function runTurnAnswering(
  client: HostClient,
  sessionId: string,
  prompt: string,
  answer: (interaction: Interaction) => AnswerInteractionBody,
  timeoutMs = 60_000,
): Promise<{ turnId: string; frames: SseFrame[]; asked: Interaction[] }> {
  let from = await lastSeqOf(client, sessionId);
  const { turnId } = await client.call('postTurn', { params: { id: sessionId }, body: { prompt } });
  const frames: SseFrame[] = [];
  const asked: Interaction[] = [];
  for (;;) {
    const read = await readEventsUntil(
      client,
      sessionId,
      (frame) => isDoneOf(turnId)(frame) || frame.event === 'permission_request',
      { lastEventId: from, timeoutMs },
    );
    frames.push(...read);
    const last = read.at(-1)!;
    from = Number(last.id);
    if (last.event !== 'permission_request') return { turnId, frames, asked };
    const interaction = (last.data as { interaction: Interaction }).interaction;
    asked.push(interaction);
    await client.call('answerInteraction', {
      params: { id: sessionId, requestId: interaction.requestId },
      body: answer(interaction),
    });
  }
}

/** Each call of the turn as a live client last heard it. */
function liveCalls(frames: readonly SseFrame[]): Map<string, ToolUseBlock> {
  const calls = new Map<string, ToolUseBlock>();
  for (const frame of frames) {
    const data = frame.data as { tool?: ToolUseBlock };
    if ((frame.event === 'tool_use' || frame.event === 'tool_result') && data.tool !== undefined) {
      calls.set(data.tool.id, data.tool);
    }
  }
  return calls;
}

/** Each call of the turn as a client reads it after a reload. */
async function storedCalls(client: HostClient, sessionId: string, turnId: string): Promise<Map<string, ToolUseBlock>> {
  const page = await client.call('listMessages', { params: { id: sessionId }, query: { limit: 500 } });
  const calls = new Map<string, ToolUseBlock>();
  for (const message of page.messages as MessageView[]) {
    const tool = message.content.find((block): block is ToolUseBlock => block.type === 'tool_use');
    if (message.turnId === turnId && tool !== undefined) calls.set(tool.id, tool);
  }
  return calls;
}

test('denied with a reason, allowed for the session, a question answered: the same live and after a reload', async () => {
  const cases = caseScripts();
  const testHost = await startTestHost({ rules: [cases.rule] });
  try {
    const { client } = testHost;
    const sessionId = (await client.call('createSession', { body: { cwd: testHost.cwd, title: 'decisions' } })).id;

    const denied = await runTurnAnswering(
      client,
      sessionId,
      cases.prompt('make a file', { prompt: bashCall('touch denied.txt'), afterTool: () => text('Understood.') }),
      () => ({ action: 'reject', optionId: 'reject', payload: { denyMessage: 'not now' } }),
    );
    const [deniedLive] = [...liveCalls(denied.frames).values()];
    assert.ok(deniedLive, 'the call was seen live');
    assert.equal(deniedLive.outcome, 'denied');
    assert.equal(deniedLive.status, 'failed');
    assert.equal(deniedLive.decision?.choice, 'denied');
    assert.equal(deniedLive.decision?.denyMessage, 'not now');
    assert.deepEqual(await storedCalls(client, sessionId, denied.turnId), liveCalls(denied.frames));

    const allowed = await runTurnAnswering(
      client,
      sessionId,
      cases.prompt('make another', { prompt: bashCall('touch allowed.txt'), afterTool: () => text('Made it.') }),
      () => ({ action: 'allow', optionId: 'allow_always', payload: {} }),
    );
    // What the session grant covers is what Claude Code suggested: the exact command as a rule, and the
    // directory the file goes to (the session's own here).
    const offered = allowed.asked[0]?.options.find((option) => option.optionId === 'allow_always');
    assert.deepEqual(offered?.sessionGrant?.rules, ['Bash(touch allowed.txt)']);
    assert.deepEqual(
      offered?.sessionGrant?.directories.map((directory) => realpathSync(directory)),
      [realpathSync(testHost.cwd)],
    );
    const [allowedLive] = [...liveCalls(allowed.frames).values()];
    assert.equal(allowedLive?.outcome, 'completed');
    assert.equal(allowedLive?.decision?.choice, 'allowed_for_session');
    assert.deepEqual(allowedLive?.decision?.sessionGrant, offered?.sessionGrant);
    assert.deepEqual(await storedCalls(client, sessionId, allowed.turnId), liveCalls(allowed.frames));

    const question: MockReply = {
      content: [
        {
          type: 'tool_use',
          name: 'AskUserQuestion',
          input: {
            questions: [
              {
                question: 'Which database should we use?',
                header: 'Database',
                multiSelect: false,
                options: [
                  { label: 'SQLite', description: 'One file' },
                  { label: 'PostgreSQL', description: 'A server' },
                ],
              },
            ],
          },
        },
      ],
    };
    const asked = await runTurnAnswering(
      client,
      sessionId,
      cases.prompt('ask me', { prompt: question, afterTool: () => text('SQLite it is.') }),
      (interaction) => {
        const [first] = interaction.input.questions as { id: string }[];
        return { action: 'allow', optionId: 'allow', payload: { answersByQuestionId: { [first!.id]: 'SQLite' } } };
      },
    );
    const [askedLive] = [...liveCalls(asked.frames).values()];
    assert.equal(askedLive?.outcome, 'completed');
    assert.deepEqual(askedLive?.decision?.questions, [
      { question: 'Which database should we use?', header: 'Database', answers: ['SQLite'], notes: null },
    ]);
    assert.deepEqual(await storedCalls(client, sessionId, asked.turnId), liveCalls(asked.frames));
    for (const call of [deniedLive, allowedLive!, askedLive!]) {
      assert.ok(call.endedAt !== null && call.endedAt >= call.startedAt, 'one duration, from the host clock');
    }
    await client.call('closeSession', { params: { id: sessionId } });
  } finally {
    await testHost.close();
  }
});

test('a Bash call silent for 35 s: its heartbeats update the call and never become calls', async () => {
  const cases = caseScripts();
  const testHost = await startTestHost({ rules: [cases.rule] });
  try {
    const { client } = testHost;
    const sessionId = (await client.call('createSession', { body: { cwd: testHost.cwd, title: 'heartbeat' } })).id;
    // Claude Code's heartbeat interval is a constant 30 s (no setting shortens it for tools): the call runs 35 s.
    const command = 'python3 -c "import time; time.sleep(35)"';
    const { turnId, frames } = await runTurnAnswering(
      client,
      sessionId,
      cases.prompt('run the silent tool', { prompt: bashCall(command), afterTool: () => text('It finished.') }),
      () => ({ action: 'allow', optionId: 'allow', payload: {} }),
      90_000,
    );
    const ids = new Set(
      frames.flatMap((frame) =>
        frame.event === 'tool_use' || frame.event === 'tool_result'
          ? [(frame.data as { tool_use_id?: string; tool: ToolUseBlock }).tool.id]
          : [],
      ),
    );
    assert.equal(ids.size, 1, `one call, no heartbeat calls: ${[...ids].join(', ')}`);
    const beats = frames.filter(
      (frame) => frame.event === 'tool_use' && (frame.data as { tool: ToolUseBlock }).tool.elapsedSeconds !== null,
    );
    assert.ok(beats.length >= 1, 'at least one heartbeat reached the call');
    const beat = (beats[0]!.data as { tool: ToolUseBlock }).tool;
    assert.equal(beat.status, 'running');
    assert.ok(beat.elapsedSeconds! >= 29, `the heartbeat says ${beat.elapsedSeconds} s`);
    const stored = await storedCalls(client, sessionId, turnId);
    assert.equal(stored.size, 1);
    const [call] = [...stored.values()];
    assert.equal(call?.outcome, 'completed', 'the call completed; nothing is left running');
    assert.ok(call!.endedAt! - call!.startedAt >= 35_000);
    assert.deepEqual(stored, liveCalls(frames));
    const done = frames.at(-1)!.data as { outcome: string };
    assert.equal(done.outcome, 'completed');
    await client.call('closeSession', { params: { id: sessionId } });
  } finally {
    await testHost.close();
  }
});

test('a call stopped by the user is canceled, one past --tool-timeout is timed_out: live and after a reload', async () => {
  const cases = caseScripts();
  const testHost = await startTestHost({ rules: [cases.rule], toolTimeoutMs: 1_500 });
  try {
    const { client } = testHost;
    const sessionId = (await client.call('createSession', { body: { cwd: testHost.cwd, title: 'ends' } })).id;
    const slow = 'python3 -c "import time; time.sleep(60)"';

    const timedOut = await runTurnAnswering(
      client,
      sessionId,
      cases.prompt('run the slow tool', { prompt: bashCall(slow), afterTool: () => text('Done.') }),
      () => ({ action: 'allow', optionId: 'allow', payload: {} }),
    );
    const [timedOutLive] = [...liveCalls(timedOut.frames).values()];
    assert.equal(timedOutLive?.outcome, 'timed_out');
    assert.deepEqual(await storedCalls(client, sessionId, timedOut.turnId), liveCalls(timedOut.frames));

    // Stopped by the user while its approval waits (the host's time-out does not run while a person decides).
    const from = await lastSeqOf(client, sessionId);
    const { turnId } = await client.call('postTurn', {
      params: { id: sessionId },
      body: { prompt: cases.prompt('run it again', { prompt: bashCall(slow), afterTool: () => text('Done.') }) },
    });
    const asked = await readEventsUntil(client, sessionId, (frame) => frame.event === 'permission_request', {
      lastEventId: from,
    });
    await client.call('cancelTurn', { params: { id: sessionId, turnId }, body: {} });
    const rest = await readEventsUntil(client, sessionId, isDoneOf(turnId), { lastEventId: Number(asked.at(-1)!.id) });
    const frames = [...asked, ...rest];
    const [canceledLive] = [...liveCalls(frames).values()];
    assert.equal(canceledLive?.outcome, 'canceled');
    assert.equal(canceledLive?.decision?.choice, 'not_answered', 'its approval went away unanswered');
    assert.deepEqual(await storedCalls(client, sessionId, turnId), liveCalls(frames));
    await client.call('closeSession', { params: { id: sessionId } });
  } finally {
    await testHost.close();
  }
});

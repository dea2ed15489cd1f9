import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { SseFrame } from '@outrigger/host-api';
import { demoScenario, type MockReply, viewMessagesRequest } from '@outrigger/mock-anthropic';
import { caseScripts, text } from '../src/sessions/testing/scriptedModel.ts';
import { lastSeqOf, readEventsUntil, runTurnAllowing, runTurnToDone } from './harness/sseReader.ts';
import { startTestHost, type TestHost, TODO_WRITE_ENV } from './harness/testHost.ts';

/*
 * What a fork takes from its source and what it must not (issue 17): the real host, sidecar and Claude Code
 * against the demo model (mock-anthropic's `demo` pack), as a user meets them.
 */

let testHost: TestHost;
const cases = caseScripts();

before(async () => {
  testHost = await startTestHost({ rules: [cases.rule], scenario: demoScenario, env: { ...TODO_WRITE_ENV } });
});
after(async () => {
  await testHost?.close();
});

const dataOf = <T = Record<string, unknown>>(frame: SseFrame | undefined) => frame?.data as T;

async function newSession(title: string): Promise<string> {
  return (await testHost.client.call('createSession', { body: { cwd: testHost.cwd, title } })).id;
}

async function closeSession(sessionId: string): Promise<void> {
  await testHost.client.call('closeSession', { params: { id: sessionId } }).catch(() => undefined);
}

function assistantText(frames: readonly SseFrame[]): string {
  return frames
    .filter((frame) => frame.event === 'text' && dataOf<{ final: boolean }>(frame).final)
    .map((frame) => dataOf<{ text: string }>(frame).text)
    .join('\n');
}

const todoWrite = (...todos: [content: string, status: string][]): MockReply => ({
  content: [
    {
      type: 'tool_use',
      name: 'TodoWrite',
      input: { todos: todos.map(([content, status]) => ({ content, status, activeForm: `Doing: ${content}` })) },
    },
  ],
});

test('a fork starts with the plan’s tasks as they stood at the fork turn, not as the source has them later', async () => {
  const sessionId = await newSession('plan source');
  let forkId: string | undefined;
  try {
    const first = await runTurnToDone(
      testHost.client,
      sessionId,
      cases.prompt('make a plan', {
        prompt: todoWrite(['Read the code', 'in_progress'], ['Write the fix', 'pending']),
        afterTool: () => text('Planned.'),
      }),
    );
    assert.equal(dataOf<{ outcome: string }>(first.frames.at(-1)).outcome, 'completed');
    await runTurnToDone(
      testHost.client,
      sessionId,
      cases.prompt('go on', {
        prompt: todoWrite(['Read the code', 'completed'], ['Write the fix', 'completed'], ['Ship it', 'in_progress']),
        afterTool: () => text('Nearly there.'),
      }),
    );
    const tasksOf = async (id: string) =>
      (await testHost.client.call('listTasks', { query: { session_id: id } })).tasks.map((task) => [
        task.title,
        task.status,
        task.source,
      ]);
    assert.equal((await tasksOf(sessionId)).length, 3, 'the source has its later plan');

    const fork = await testHost.client.call('forkSession', {
      params: { id: sessionId },
      body: { turnId: first.turnId },
    });
    forkId = fork.id;
    assert.deepEqual(await tasksOf(forkId), [
      ['Read the code', 'in_progress', 'sdk'],
      ['Write the fix', 'pending', 'sdk'],
    ]);
    const detail = await testHost.client.call('getSession', { params: { id: forkId } });
    assert.deepEqual(
      detail.tasks.map((task) => task.title),
      ['Read the code', 'Write the fix'],
      'the snapshot the Tasks panel opens with has them',
    );
    assert.equal((await tasksOf(sessionId)).length, 3, 'the source keeps its own');

    // The fork's agent goes on from its own plan: its next TodoWrite replaces the copied rows.
    await runTurnToDone(
      testHost.client,
      forkId,
      cases.prompt('another way', {
        prompt: todoWrite(['Read the code', 'completed'], ['Try another way', 'in_progress']),
        afterTool: () => text('Trying.'),
      }),
    );
    assert.deepEqual(await tasksOf(forkId), [
      ['Read the code', 'completed', 'sdk'],
      ['Try another way', 'in_progress', 'sdk'],
    ]);
  } finally {
    if (forkId !== undefined) await closeSession(forkId);
    await closeSession(sessionId);
  }
});

/**
 * The source starts the demo's background job (3 s) and the fork is made at that turn, while the job runs or
 * after it reported; the fork's first prompt must get its own answer (issue 17: it got the job's report).
 */
async function forkAfterBackgroundJob(when: 'running' | 'reported', prompt: string): Promise<void> {
  const sessionId = await newSession(`background source (${when})`);
  let forkId: string | undefined;
  try {
    const started = await runTurnAllowing(testHost.client, sessionId, 'start a background job');
    assert.equal(dataOf<{ outcome: string }>(started.frames.at(-1)).outcome, 'completed');
    const from = await lastSeqOf(testHost.client, sessionId);
    const reportInSource = readEventsUntil(
      testHost.client,
      sessionId,
      (frame) => frame.event === 'done' && dataOf<{ turnId: string }>(frame).turnId !== started.turnId,
      { lastEventId: from, timeoutMs: 30_000 },
    );
    if (when === 'reported') await reportInSource;

    const fork = await testHost.client.call('forkSession', {
      params: { id: sessionId },
      body: { turnId: started.turnId },
    });
    forkId = fork.id;
    const inFork = await runTurnAllowing(testHost.client, forkId, prompt);
    const said = assistantText(inFork.frames);
    assert.doesNotMatch(said, /background job/, 'the fork answers its own prompt, not the job');
    assert.match(said, /created `outrigger-demo\/hello.txt`/);
    const asked = testHost.mock
      .messageRequests()
      .map((request, index) => viewMessagesRequest(request.body, index))
      .filter((view) => view.lastUserText.includes(prompt));
    assert.ok(asked.length > 0, 'the model was asked');
    assert.deepEqual(
      asked.map((view) => view.taskNotification),
      asked.map(() => undefined),
      'no notice of the source’s job reached the fork’s model',
    );
    const turns = (await testHost.client.call('listMessages', { params: { id: forkId } })).turns;
    assert.deepEqual(
      turns.filter((turn) => turn.kind !== 'user').map((turn) => turn.id),
      [],
      'the fork has no follow-up turn of its own',
    );

    // The job is the source's: it reports there.
    const report = await reportInSource;
    assert.match(assistantText(report), /background job finished/);
  } finally {
    if (forkId !== undefined) await closeSession(forkId);
    await closeSession(sessionId);
  }
}

test('a fork made while the source’s background job runs does not inherit its follow-up', async () => {
  await forkAfterBackgroundJob('running', 'run a command please');
});

test('a fork made after the source’s background job reported does not get that job as its own', async () => {
  await forkAfterBackgroundJob('reported', 'now run a command');
});

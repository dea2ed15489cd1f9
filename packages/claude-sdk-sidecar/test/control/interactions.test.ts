import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { MockReply } from '@outrigger/mock-anthropic';
import { contractQuestionId } from '../../src/interaction/askUserQuestion.ts';
import {
  ALLOW,
  assertOk,
  type ControlSession,
  type InteractionAnswer,
  newTurnId,
  openControlSession,
} from './controlSession.ts';
import type { LoggedLine } from './controlSidecar.ts';
import { askUserQuestionCall, bashCall, slowText } from './scriptedModel.ts';

const APPROVAL_OPTIONS = [
  { kind: 'allow_always', name: 'Allow for session', optionId: 'allow_always' },
  { kind: 'allow_once', name: 'Allow', optionId: 'allow' },
  { kind: 'reject_once', name: 'Reject', optionId: 'reject' },
];

/**
 * The original's three options, in its order; "Allow for session" also says what it grants besides the exact
 * request (an addition of ours: `sessionGrant`, Claude Code's suggested rules and directories). Returns it.
 */
function assertApprovalOptions(options: unknown): { rules: string[]; directories: string[] } {
  const list = options as { sessionGrant?: { rules: string[]; directories: string[] } }[];
  assert.deepEqual(
    list.map(({ sessionGrant: _grant, ...option }) => option),
    APPROVAL_OPTIONS,
  );
  const grant = list[0]?.sessionGrant;
  assert.ok(grant !== undefined, 'allow_always says what it grants');
  assert.ok(grant.rules.every((rule) => typeof rule === 'string'));
  assert.ok(grant.directories.every((directory) => typeof directory === 'string'));
  assert.equal(
    list.slice(1).some((option) => option.sessionGrant !== undefined),
    false,
  );
  return grant;
}

describe('approvals and questions through the real sidecar and Claude Code', () => {
  let session: ControlSession;

  before(async () => {
    session = await openControlSession();
  });

  after(async () => {
    await session?.close();
  });

  /** Runs a turn whose model asks for `reply` and resolves with the interaction event it publishes. */
  const startInteraction = async (
    turnId: string,
    event: 'approval_requested' | 'user_input_requested',
    reply: MockReply,
  ): Promise<LoggedLine> => {
    assertOk(await session.exec(turnId, session.model.prompt('Do the task.', { prompt: reply })), 'exec');
    return session.waitForEvent(event, turnId);
  };

  const assertCompleted = async (turnId: string): Promise<void> => {
    const terminal = await session.waitForTerminal(turnId);
    assert.equal(terminal.type, 'turn_completed', `turn ${turnId} must complete: ${JSON.stringify(terminal.payload)}`);
    assert.deepEqual(session.model.unmatched(), [], 'every model request was scripted');
  };

  /** Submits `answer`, which must be taken as the answer, and waits for the turn to complete. */
  const answerAndComplete = async (turnId: string, requestId: string, answer: InteractionAnswer): Promise<void> => {
    const submitted = await session.submit(turnId, requestId, answer);
    assertOk(submitted, 'submit_interactive');
    assert.equal(submitted.payload.disposition, 'answered');
    await assertCompleted(turnId);
  };

  /** The tool_results the model received for the tool call `toolUseId`, in order. */
  const toolResultsFor = (toolUseId: unknown) =>
    session.model
      .views()
      .flatMap((view) => view.toolResults)
      .filter((result) => result.toolUseId === toolUseId);

  const toolEnds = (toolCallId: string): string[] =>
    session.sidecar.log
      .filter(
        (line) =>
          (line.type === 'tool_completed' || line.type === 'tool_failed') && line.payload.toolCallId === toolCallId,
      )
      .map((line) => line.type);

  it('answers unknown for an interaction it never asked', async () => {
    const answer = await session.disposition(newTurnId('no-turn'), randomUUID(), ALLOW);
    assertOk(answer, 'interactive_disposition');
    assert.equal(answer.payload.disposition, 'unknown');
  });

  it('runs an allowed tool once; identical replays are answered, a different one conflicts', async () => {
    const turnId = newTurnId('allow');
    const file = `allowed-${randomUUID()}.txt`;
    const approval = await startInteraction(turnId, 'approval_requested', bashCall(`touch ${file}`));
    assert.equal(approval.payload.toolName, 'Bash');
    assert.deepEqual(assertApprovalOptions(approval.payload.options).rules, [`Bash(touch ${file})`]);
    const requestId = String(approval.payload.requestId);
    const toolCallId = String(approval.payload.toolCallId);

    const pending = await session.disposition(turnId, requestId, ALLOW);
    assertOk(pending, 'interactive_disposition');
    assert.equal(pending.payload.disposition, 'pending');

    // Two identical submissions in one chunk: the SDK is answered once, the second is a replay.
    const { agentSessionId } = session;
    const submission = {
      type: 'submit_interactive',
      payload: { agentSessionId, turnId, requestId, ...ALLOW },
    } as const;
    const concurrent = await Promise.all(session.sidecar.requestTogether([submission, submission]));
    for (const answer of concurrent) assertOk(answer, 'submit_interactive');
    assert.deepEqual(
      concurrent.map((answer) => [answer.payload.disposition, answer.payload.replayed === true]),
      [
        ['answered', false],
        ['answered', true],
      ],
    );
    await assertCompleted(turnId);
    assert.ok(existsSync(join(session.home.cwd, file)), 'the allowed command ran');
    const allowed = toolResultsFor(toolCallId);
    assert.deepEqual(
      allowed.map((result) => result.isError),
      [false],
      'the model received one successful tool_result for the allowed call',
    );

    const replay = await session.submit(turnId, requestId, ALLOW);
    assertOk(replay, 'submit_interactive');
    assert.deepEqual(replay.payload, { disposition: 'answered', replayed: true });
    const conflict = await session.submit(turnId, requestId, { action: 'reject', optionId: 'reject', payload: {} });
    assertOk(conflict, 'submit_interactive');
    assert.equal(conflict.payload.disposition, 'conflict');
    const settled = await session.disposition(turnId, requestId, ALLOW);
    assertOk(settled, 'interactive_disposition');
    assert.deepEqual(settled.payload, { disposition: 'answered', replayed: true });

    assert.deepEqual(toolEnds(toolCallId), ['tool_completed'], 'the tool ran exactly once');
    assert.deepEqual(
      session.eventsOf('approval_resolved', turnId).map((line) => line.payload),
      [{ turnId, requestId, action: 'allow', optionId: 'allow', payload: {}, agentSessionId: session.agentSessionId }],
    );
  });

  it('rejects with the host message, which reaches the model as an is_error tool_result', async () => {
    const turnId = newTurnId('reject');
    const file = `rejected-${randomUUID()}.txt`;
    const denyMessage = `Not in this directory ${randomUUID()}`;
    const approval = await startInteraction(turnId, 'approval_requested', bashCall(`touch ${file}`));
    const requestId = String(approval.payload.requestId);
    const reject = { action: 'reject', optionId: 'reject', payload: { denyMessage } };

    await answerAndComplete(turnId, requestId, reject);

    const denied = toolResultsFor(approval.payload.toolCallId)[0];
    assert.ok(denied, 'the model received a tool_result for the rejected call');
    assert.equal(denied.isError, true, 'the rejected call is an error result');
    assert.ok(denied.content.includes(denyMessage), `the tool_result carries the deny message: ${denied.content}`);
    assert.deepEqual(toolEnds(String(approval.payload.toolCallId)), ['tool_failed']);
    assert.equal(existsSync(join(session.home.cwd, file)), false, 'the rejected command never ran');
    assert.deepEqual(
      session.eventsOf('approval_resolved', turnId).map((line) => line.payload),
      [{ turnId, requestId, ...reject, agentSessionId: session.agentSessionId }],
    );
  });

  it('delivers AskUserQuestion answers keyed by the contract-question id a host computes to the model', async () => {
    const turnId = newTurnId('question');
    const question = 'Which database should we use?';
    const asked = {
      question,
      header: 'Database',
      options: [
        { label: 'SQLite', description: 'One file' },
        { label: 'PostgreSQL', description: 'A server' },
      ],
      multiSelect: false,
    };
    // Non-ASCII text and an astral character: the id hashes code points.
    const unicode = {
      header: 'Bestätigen',
      question: 'Alles löschen? 🗑',
      options: [
        { label: 'Ja', description: 'Alles weg' },
        { label: 'Nein', description: 'Behalten' },
      ],
      multiSelect: false,
    };
    const ask = await startInteraction(turnId, 'user_input_requested', askUserQuestionCall([asked, unicode]));
    assert.equal(ask.payload.toolName, 'AskUserQuestion');
    // A host computes each id from the question it was shown, as Claude Code sent it (Claude Code puts the
    // keys in its own order: question, header, options, multiSelect), without the id the sidecar added.
    const published = (ask.payload.input as { questions: Record<string, unknown>[] }).questions;
    const [questionId, unicodeId] = published.map(({ id, ...asSent }) => {
      assert.equal(id, contractQuestionId(asSent), 'the published id is the one a host computes');
      return contractQuestionId(asSent);
    });
    assert.deepEqual(
      published.map(({ id: _id, ...asSent }) => asSent.question),
      [question, unicode.question],
    );
    const requestId = String(ask.payload.requestId);
    const answers = {
      action: 'allow',
      optionId: '',
      payload: {
        answersByQuestionId: { [String(questionId)]: 'SQLite', [String(unicodeId)]: 'Nein' },
        annotations: { [String(questionId)]: { notes: 'a small app' } },
      },
    };

    await answerAndComplete(turnId, requestId, answers);

    const result = toolResultsFor(ask.payload.toolCallId)[0];
    assert.ok(result, 'the model received the AskUserQuestion tool_result');
    assert.equal(result.isError, false);
    assert.ok(result.content.includes(`"${question}"="SQLite"`), `the answer reaches the model: ${result.content}`);
    assert.ok(result.content.includes('a small app'), `the annotation reaches the model: ${result.content}`);
    assert.ok(
      result.content.includes(`"${unicode.question}"="Nein"`),
      `the second answer reaches the model: ${result.content}`,
    );
    assert.deepEqual(
      session.eventsOf('user_input_resolved', turnId).map((line) => line.payload),
      [{ turnId, requestId, ...answers, agentSessionId: session.agentSessionId }],
    );
  });

  it('writes the session_state of apply_settings before its ok', async () => {
    const from = session.sidecar.log.length;
    const answer = await session.sidecar.request('apply_settings', {
      agentSessionId: session.agentSessionId,
      permissionMode: 'default',
    });
    assertOk(answer, 'apply_settings');
    const states = session.sidecar.log.filter((line) => line.index >= from && line.type === 'session_state');
    assert.ok(states[0], 'apply_settings published a session_state');
    assert.ok(states[0].index < answer.index, 'the session_state comes before the ok');
  });

  it('declines a question answered with reject: the model gets an is_error tool_result and the turn goes on', async () => {
    const turnId = newTurnId('question-declined');
    const proceed = {
      question: 'Proceed?',
      header: 'Go',
      options: [
        { label: 'Yes', description: 'Go on' },
        { label: 'No', description: 'Stop here' },
      ],
      multiSelect: false,
    };
    const ask = await startInteraction(turnId, 'user_input_requested', askUserQuestionCall([proceed]));
    assert.deepEqual(ask.payload.options, [], 'a question offers no options: the answers go in the payload');
    const requestId = String(ask.payload.requestId);
    // The answers are ignored: a refusal in action or optionId declines the whole question.
    const decline = { action: 'reject', optionId: '', payload: { answers: { 'Proceed?': 'Yes' } } };

    await answerAndComplete(turnId, requestId, decline);

    const declined = toolResultsFor(ask.payload.toolCallId)[0];
    assert.ok(declined, 'the model received a tool_result for the declined question');
    assert.equal(declined.isError, true, 'a declined question is an error result');
    assert.ok(declined.content.includes('User declined to answer the question'), declined.content);
    assert.equal(declined.content.includes('"Proceed?"="Yes"'), false, 'no answer reached the model');
    assert.deepEqual(
      session.eventsOf('user_input_resolved', turnId).map((line) => line.payload),
      [{ turnId, requestId, ...decline, agentSessionId: session.agentSessionId }],
    );
  });

  it('keeps an "Allow for session" grant across a new Query generation', async () => {
    const file = `session-${randomUUID()}.txt`;
    const command = `touch ${file}`;
    const firstTurnId = newTurnId('grant');
    const approval = await startInteraction(firstTurnId, 'approval_requested', bashCall(command));
    const grant = { action: 'allow_always', optionId: 'allow_always', payload: {} };
    assertOk(await session.submit(firstTurnId, String(approval.payload.requestId), grant), 'submit_interactive');
    await assertCompleted(firstTurnId);
    assert.ok(existsSync(join(session.home.cwd, file)), 'the granted command ran');
    rmSync(join(session.home.cwd, file));

    // A provider_active cancel closes the Query; the next turn runs in a fresh Claude Code process.
    const canceledTurnId = newTurnId('new-generation');
    const streaming = session.model.prompt('Stream a long answer.', { prompt: slowText(100) });
    assertOk(await session.exec(canceledTurnId, streaming), 'exec');
    await session.waitForEvent('assistant_delta', canceledTurnId);
    const cancel = await session.cancel(canceledTurnId);
    assertOk(cancel, 'cancel');
    assert.equal(cancel.payload.disposition, 'provider_active');

    const repeatTurnId = newTurnId('granted');
    assertOk(
      await session.exec(repeatTurnId, session.model.prompt('Do it again.', { prompt: bashCall(command) })),
      'exec',
    );
    await assertCompleted(repeatTurnId);
    assert.deepEqual(
      session.eventsOf('approval_requested', repeatTurnId),
      [],
      'the session grant answers the matching request without asking',
    );
    assert.deepEqual(
      session.eventsOf('tool_completed', repeatTurnId).map((line) => line.payload.toolName),
      ['Bash'],
    );
    assert.ok(existsSync(join(session.home.cwd, file)), 'the command ran again under the grant');
    for (const settings of [
      join(session.home.cwd, '.claude', 'settings.local.json'),
      join(session.home.cwd, '.claude', 'settings.json'),
      join(session.home.configDir, 'settings.json'),
    ]) {
      const written = existsSync(settings) ? readFileSync(settings, 'utf8') : '';
      assert.equal(written.includes(file), false, `a session grant must not be persisted to ${settings}`);
    }
  });

  it('remembers "Allow for session" for a compound command Claude Code has no rule for (issue scenario)', async () => {
    const dir = `hard-demo-${randomUUID().slice(0, 8)}`;
    const command = `mkdir -p ${dir} && echo hi > ${dir}/a.txt && cat ${dir}/a.txt`;
    const grant = { action: 'allow_always', optionId: 'allow_always', payload: {} };
    const call: MockReply = {
      content: [{ type: 'tool_use', name: 'Bash', input: { command, description: 'Write and show a file' } }],
    };
    const firstTurnId = newTurnId('compound');
    const approval = await startInteraction(firstTurnId, 'approval_requested', call);
    assertApprovalOptions(approval.payload.options);
    assertOk(await session.submit(firstTurnId, String(approval.payload.requestId), grant), 'submit_interactive');
    await assertCompleted(firstTurnId);
    assert.equal(readFileSync(join(session.home.cwd, dir, 'a.txt'), 'utf8'), 'hi\n', 'the granted command ran');

    // Each later turn runs the command twice, so the same turn, the same Query and the next Query all count.
    const repeat = async (label: string): Promise<void> => {
      const turnId = newTurnId(label);
      let results = 0;
      const twice = session.model.prompt('Run it again, twice.', {
        prompt: call,
        afterTool: () => (++results === 1 ? call : { content: [{ type: 'text', text: 'Ran it twice.' }] }),
      });
      assertOk(await session.exec(turnId, twice), 'exec');
      await assertCompleted(turnId);
      assert.deepEqual(
        session.eventsOf('approval_requested', turnId),
        [],
        `${label}: the identical request is not asked`,
      );
      const completed = session.eventsOf('tool_completed', turnId).map((line) => String(line.payload.toolName));
      assert.deepEqual(completed, ['Bash', 'Bash'], `${label}: both identical calls ran`);
    };
    await repeat('same-query');

    // A cancel retires the Query: the grant must hold in the next Claude Code process too.
    const canceledTurnId = newTurnId('retire');
    assertOk(
      await session.exec(canceledTurnId, session.model.prompt('Stream a long answer.', { prompt: slowText(100) })),
      'exec',
    );
    await session.waitForEvent('assistant_delta', canceledTurnId);
    assert.equal((await session.cancel(canceledTurnId)).payload.disposition, 'provider_active');
    await repeat('next-query');
  });

  it('wrote only well-formed protocol lines whose events match their schemas', () => {
    assert.deepEqual(session.sidecar.protocolErrors, []);
  });
});

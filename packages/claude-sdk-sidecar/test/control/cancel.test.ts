import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { cancelResultSchema } from '@outrigger/protocol';
import { parseSidecarDiagnostic } from '../../src/process/sidecarDiagnostic.ts';
import { isAlive, pollUntil, waitForProcesses, waitUntilGone, youngestChild } from '../../src/testing/processTree.ts';
import { CANCEL_STAGES_AFTER_INTERRUPT_ACK } from '../../src/testing/shutdownStages.ts';
import { TURN_OUTPUT_EVENT_TYPES } from '../../src/testing/turnEvents.ts';
import {
  ALLOW,
  allowApproval,
  assertOk,
  CANCEL_BUDGETS,
  type ControlSession,
  newTurnId,
  openControlSession,
} from './controlSession.ts';
import type { Answer, LoggedLine } from './controlSidecar.ts';
import { bashCall, slowText } from './scriptedModel.ts';

const CANCEL_DIAGNOSTIC_PREFIX = 'CLAUDE_CODE_CANCEL_DIAGNOSTIC';

/** Phases in which the provider had accepted the turn (reference §3.4 step 5). */
const POST_IDENTITY_PHASES = ['identity_resolved', 'streaming', 'waiting_approval', 'waiting_input', 'running_tool'];

/** Output of a turn that must never be published once the turn was canceled. */
const TURN_OUTPUT_EVENTS: ReadonlySet<string> = new Set(TURN_OUTPUT_EVENT_TYPES);

const canary = {
  prompt: `canary-prompt-${randomUUID()}`,
  tool: `canary-tool-${randomUUID()}`,
  secret: `canary-secret-${randomUUID()}`,
};

describe('cancel through the real sidecar and Claude Code', () => {
  let session: ControlSession;

  before(async () => {
    // The planted credential rides along for the whole file; the canary test checks all stderr at the end.
    session = await openControlSession({ startEnv: { ANTHROPIC_AUTH_TOKEN: canary.secret } });
  });

  after(async () => {
    await session?.close();
  });

  /** Starts a turn whose answer streams for `chunks × 100 ms` and resolves once its output is flowing. */
  const startStreamingTurn = async (
    turnId: string,
    chunks = 100,
  ): Promise<{ providerTurnId: string; prompt: string }> => {
    const prompt = session.model.prompt('Stream a long answer.', { prompt: slowText(chunks) });
    assertOk(await session.exec(turnId, prompt), 'exec');
    const identity = await session.waitForEvent('provider_turn_identity_resolved', turnId);
    await session.waitForEvent('assistant_delta', turnId);
    return { providerTurnId: String(identity.payload.providerTurnId), prompt };
  };

  /** Exactly one terminal for the turn, a `turn_canceled`, published before the cancel's `ok`. */
  const assertCanceledOnceBefore = (turnId: string, answer: Answer): LoggedLine => {
    const terminals = session.terminalsOf(turnId);
    assert.deepEqual(
      terminals.map((line) => line.type),
      ['turn_canceled'],
      `turn ${turnId} must end in exactly one turn_canceled`,
    );
    const [canceled] = terminals;
    assert.ok(canceled && canceled.index < answer.index, 'turn_canceled must be written before the cancel ok');
    return canceled;
  };

  const assertNextTurnCompletes = async (label: string): Promise<{ turnId: string; tag: string }> => {
    const turnId = newTurnId(label);
    const tag = `follow-up-${randomUUID()}`;
    const prompt = session.model.prompt(`Continue please ${tag}.`, {
      prompt: { content: [{ type: 'text', text: 'Continuing.' }] },
    });
    assertOk(await session.exec(turnId, prompt), 'exec');
    const terminal = await session.waitForTerminal(turnId);
    assert.equal(terminal.type, 'turn_completed', `the next turn must complete: ${JSON.stringify(terminal.payload)}`);
    return { turnId, tag };
  };

  it('answers absent when nothing runs, with or without a turn id', async () => {
    const active = await session.cancel('');
    assertOk(active, 'cancel');
    assert.deepEqual(cancelFields(active), nothingCanceled('absent', ''));

    const neverRan = newTurnId('never-ran');
    const named = await session.cancel(neverRan);
    assertOk(named, 'cancel');
    assert.deepEqual(cancelFields(named), nothingCanceled('absent', neverRan));
  });

  it('rejects missing or non-positive budgets with the exact errors, answered to the request id', async () => {
    const { agentSessionId } = session;
    const cases: [Record<string, unknown>, string][] = [
      [{ drainTimeoutMs: 1_000 }, 'cancel interruptTimeoutMs must be a positive integer'],
      [{ interruptTimeoutMs: 0, drainTimeoutMs: 1_000 }, 'cancel interruptTimeoutMs must be a positive integer'],
      [{ interruptTimeoutMs: 2.5, drainTimeoutMs: 1_000 }, 'cancel interruptTimeoutMs must be a positive integer'],
      [{ interruptTimeoutMs: 1_000 }, 'cancel drainTimeoutMs must be a positive integer'],
      [{ interruptTimeoutMs: 1_000, drainTimeoutMs: 0 }, 'cancel drainTimeoutMs must be a positive integer'],
      [{}, 'cancel interruptTimeoutMs must be a positive integer'],
    ];
    for (const [budgets, error] of cases) {
      // An uncorrelated error would leave this request waiting: the timeout makes that a clear failure.
      const answer = await session.sidecar.request(
        'cancel',
        { agentSessionId, turnId: 'budget-check', ...budgets },
        { timeoutMs: 5_000 },
      );
      assert.equal(answer.type, 'error', `budgets ${JSON.stringify(budgets)} must be refused`);
      assert.equal(answer.payload.error, error, `budgets ${JSON.stringify(budgets)}`);
    }
  });

  it('cancels a streaming turn: provider_active, one turn_canceled before ok, and the next turn resumes', async () => {
    const turnId = newTurnId('stream');
    const { providerTurnId, prompt: canceledPrompt } = await startStreamingTurn(turnId);

    const answer = await session.cancel(turnId);
    assertOk(answer, 'cancel');
    assert.deepEqual(cancelFields(answer), { canceled: true, disposition: 'provider_active', turnId, providerTurnId });
    assert.equal(answer.payload.queryRetired, true, 'the cancel retired the Query: its Claude Code exits');
    assertPostIdentityPhase(answer);
    const canceled = assertCanceledOnceBefore(turnId, answer);
    assert.equal(canceled.payload.providerTurnId, providerTurnId, 'turn_canceled carries the bound provider turn id');

    const next = await assertNextTurnCompletes('after-stream');
    const lateOutput = session.sidecar.log.filter(
      (line) => line.index > canceled.index && TURN_OUTPUT_EVENTS.has(line.type) && line.payload.turnId === turnId,
    );
    assert.deepEqual(
      lateOutput.map((line) => line.type),
      [],
      'no output of the canceled turn after its turn_canceled',
    );
    assert.equal(session.terminalsOf(turnId).length, 1, 'the canceled turn gets no second terminal');

    const resumed = session.model.views().find((view) => view.isNewPrompt && view.lastUserText.includes(next.tag));
    assert.ok(resumed, 'the model received the next prompt');
    assert.ok(
      JSON.stringify(resumed.body).includes(canceledPrompt),
      'the next request carries the canceled turn in its history (the Query resumed the session)',
    );
  });

  it('answers mismatch for a turn that is not the running one, and leaves the running turn alone', async () => {
    const turnId = newTurnId('keeps-running');
    await startStreamingTurn(turnId, 30);
    const otherTurnId = newTurnId('not-running');

    const answer = await session.cancel(otherTurnId);
    assertOk(answer, 'cancel');
    assert.deepEqual(cancelFields(answer), nothingCanceled('mismatch', otherTurnId));
    const terminal = await session.waitForTerminal(turnId);
    assert.equal(terminal.type, 'turn_completed', 'the running turn must finish normally');
    assert.deepEqual(session.terminalsOf(otherTurnId), [], 'nothing is published for the mismatched turn');
  });

  it('cancels a turn before it is dispatched: pre_accept, and the Query is never touched', async () => {
    const runningTurnId = newTurnId('running');
    await startStreamingTurn(runningTurnId, 20);
    const queuedTurnId = newTurnId('queued');
    const queuedTag = `never-sent-${randomUUID()}`;
    const queuedPrompt = session.model.prompt(`Queued work ${queuedTag}.`, {
      prompt: { content: [{ type: 'text', text: 'This must never be asked.' }] },
    });
    const { agentSessionId } = session;

    // Same chunk: the cancel is read in the same tick as the exec, before the turn can be handed to Claude Code.
    const [exec, cancel] = session.sidecar.requestTogether([
      { type: 'exec', payload: { agentSessionId, turnId: queuedTurnId, prompt: queuedPrompt } },
      {
        type: 'cancel',
        payload: { agentSessionId, turnId: queuedTurnId, ...CANCEL_BUDGETS },
      },
    ]);
    assertOk(await exec, 'exec');
    const answer = await cancel;
    assertOk(answer, 'cancel');
    assert.deepEqual(
      { ...cancelFields(answer), dispatchPhase: answer.payload.dispatchPhase },
      { canceled: true, disposition: 'pre_accept', turnId: queuedTurnId, providerTurnId: '', dispatchPhase: 'queued' },
    );
    const canceled = assertCanceledOnceBefore(queuedTurnId, answer);
    assert.equal(canceled.payload.providerTurnId, undefined, 'a turn never accepted has no provider turn id');

    const terminal = await session.waitForTerminal(runningTurnId);
    assert.equal(terminal.type, 'turn_completed', 'the running turn (and its Query) must be untouched');
    assert.ok(
      !session.model.views().some((view) => JSON.stringify(view.body).includes(queuedTag)),
      'the canceled prompt never reached the model',
    );
    assert.deepEqual(session.eventsOf('provider_turn_identity_resolved', queuedTurnId), []);
  });

  it('cancels a prompt queued behind the running turn by withdrawing it: the running turn and its Query go on', async () => {
    const runningTurnId = newTurnId('ahead');
    await startStreamingTurn(runningTurnId, 20);
    const claude = youngestChild(session.sidecar.pid, 'claude');
    assert.ok(claude, 'the Claude Code child of the sidecar');
    const queuedTurnId = newTurnId('behind');
    const queuedTag = `withdrawn-${randomUUID()}`;
    const queuedPrompt = session.model.prompt(`Queued work ${queuedTag}.`, {
      prompt: { content: [{ type: 'text', text: 'This must never be asked.' }] },
    });
    // The prompt is handed to Claude Code on the tick after the ok, before the cancel can be read: it waits
    // there behind the running turn (dispatchPhase 'dispatched' below says so).
    assertOk(await session.exec(queuedTurnId, queuedPrompt), 'exec');
    const answer = await session.cancel(queuedTurnId);
    assertOk(answer, 'cancel');
    assert.deepEqual(
      {
        ...cancelFields(answer),
        dispatchPhase: answer.payload.dispatchPhase,
        queryRetired: answer.payload.queryRetired,
      },
      {
        canceled: true,
        disposition: 'pre_accept',
        turnId: queuedTurnId,
        providerTurnId: '',
        dispatchPhase: 'dispatched',
        queryRetired: false,
      },
    );
    assertCanceledOnceBefore(queuedTurnId, answer);
    assert.deepEqual(session.terminalsOf(runningTurnId), [], 'the running turn is not canceled with it');

    const terminal = await session.waitForTerminal(runningTurnId);
    assert.equal(terminal.type, 'turn_completed', `the running turn completes: ${JSON.stringify(terminal.payload)}`);
    assert.equal(youngestChild(session.sidecar.pid, 'claude'), claude, 'the same Claude Code process');
    assert.ok(
      !session.model.views().some((view) => JSON.stringify(view.body).includes(queuedTag)),
      'the withdrawn prompt never reached the model',
    );
    assert.deepEqual(session.eventsOf('provider_turn_identity_resolved', queuedTurnId), []);
    await assertNextTurnCompletes('after-withdrawal');
  });

  it('cancels while a slow Bash command runs: the tool call ends and its process is gone', async () => {
    const turnId = newTurnId('slow-bash');
    const marker = `ctl-sleep-${randomUUID()}`;
    const prompt = session.model.prompt('Run the slow command.', {
      prompt: bashCall(`python3 -c "import time; time.sleep(30); print('${marker}')"`),
    });
    assertOk(await session.exec(turnId, prompt), 'exec');
    const toolCallId = String((await allowApproval(session, turnId)).payload.toolCallId);
    const running = await waitForProcesses(marker, 'the slow python command is running', 20_000);

    const answer = await session.cancel(turnId);
    assertOk(answer, 'cancel');
    assert.equal(answer.payload.disposition, 'provider_active');
    assert.equal(answer.payload.canceled, true);
    assertPostIdentityPhase(answer);
    assertCanceledOnceBefore(turnId, answer);
    // Nothing of the turn is published after the cancel's ok, so the tool call must have ended before it.
    const toolEnd = session.sidecar.log.find(
      (line) =>
        (line.type === 'tool_failed' || line.type === 'tool_completed') &&
        line.payload.toolCallId === toolCallId &&
        line.index < answer.index,
    );
    await waitUntilGone(running, `the python processes ${running.join(', ')} are gone after the cancel`, 5_000);
    // The fence drops Claude Code's own interrupted tool_result, so the sidecar has to close the call itself.
    assert.ok(toolEnd, `the Bash call ${toolCallId} must end (tool_failed or tool_completed) before the cancel ok`);
  });

  it('cancels while an approval is pending: the approval becomes superseded', async () => {
    const turnId = newTurnId('pending-approval');
    const file = `pending-${randomUUID()}.txt`;
    const prompt = session.model.prompt('Create the file.', { prompt: bashCall(`touch ${file}`) });
    assertOk(await session.exec(turnId, prompt), 'exec');
    const approval = await session.waitForEvent('approval_requested', turnId);
    const requestId = String(approval.payload.requestId);
    const identity = session.eventsOf('provider_turn_identity_resolved', turnId)[0];
    assert.ok(identity, 'an approval is published only after the turn identity');

    const answer = await session.cancel(turnId);
    assertOk(answer, 'cancel');
    assert.deepEqual(cancelFields(answer), {
      canceled: true,
      disposition: 'provider_active',
      turnId,
      providerTurnId: identity.payload.providerTurnId,
    });
    assertCanceledOnceBefore(turnId, answer);

    const disposition = await session.disposition(turnId, requestId, ALLOW);
    assertOk(disposition, 'interactive_disposition');
    assert.deepEqual(disposition.payload, { disposition: 'superseded', replayed: true });
    const lateSubmit = await session.submit(turnId, requestId, ALLOW);
    assertOk(lateSubmit, 'submit_interactive');
    assert.deepEqual(lateSubmit.payload, { disposition: 'superseded', replayed: true });
    assert.equal(existsSync(join(session.home.cwd, file)), false, 'the superseded approval never ran the tool');
  });

  it('answers a second cancel of a turn whose cancel is still in flight with an error', async () => {
    const turnId = newTurnId('double-cancel');
    await startStreamingTurn(turnId);
    const claude = youngestChild(session.sidecar.pid, 'claude');
    assert.ok(claude, 'the Claude Code child of the sidecar');
    // A stopped child never acknowledges the interrupt, so the first cancel stays in flight for its interrupt budget.
    process.kill(claude, 'SIGSTOP');
    const stderrFrom = session.sidecar.stderrLines.length;
    let firstSettled = false;
    const first = session.cancel(turnId, { interruptTimeoutMs: 2_000, drainTimeoutMs: 5_000 }).finally(() => {
      firstSettled = true;
    });
    try {
      // Sync point: the first cancel has sent its interrupt, which the stopped child cannot acknowledge.
      await pollUntil(
        () =>
          session.sidecar.stderrLines
            .slice(stderrFrom)
            .find((line) => line.startsWith('CLAUDE_CODE_CANCEL_DIAGNOSTIC') && line.includes('"interrupt_started"')),
        'the first cancel reaches its interrupt (CLAUDE_CODE_CANCEL_DIAGNOSTIC interrupt_started)',
        10_000,
      );
      assert.equal(firstSettled, false, 'the first cancel must still be waiting for the interrupt');

      const second = await session.cancel(turnId);
      assert.equal(
        second.type,
        'error',
        'a cancel while another cancel of the turn is in flight must be an error; ' +
          `got ok ${JSON.stringify(second.payload)} (was it queued behind the first until the turn settled?)`,
      );
      assert.equal(second.payload.error, `Claude SDK exact cancellation remains unresolved for turn ${turnId}`);
      const failed = session.sidecar.stderrLines
        .slice(stderrFrom)
        .map(parseSidecarDiagnostic)
        .find((diagnostic) => diagnostic?.record.stage === 'cancel_failed');
      assert.deepEqual(
        failed?.record.error,
        { name: 'Error', message: second.payload.error },
        'cancel_failed carries the error as {name, message}: the sidecar wrote the message, so it is safe',
      );

      const firstAnswer = await first;
      assertOk(firstAnswer, 'cancel');
      // The interrupt timed out, the transport was closed anyway: the turn is still canceled.
      assert.equal(firstAnswer.payload.disposition, 'provider_active');
      assertCanceledOnceBefore(turnId, firstAnswer);
    } finally {
      if (isAlive(claude)) process.kill(claude, 'SIGKILL');
      await first.catch(() => undefined);
    }
  });

  it('answers absent for a turn that already failed because its Claude Code child died', async () => {
    const turnId = newTurnId('child-died');
    await startStreamingTurn(turnId);
    const claude = youngestChild(session.sidecar.pid, 'claude');
    assert.ok(claude, 'the Claude Code child of the sidecar');
    process.kill(claude, 'SIGKILL');
    const terminal = await session.waitForTerminal(turnId);
    assert.equal(terminal.type, 'turn_failed', 'the dead child fails the turn');

    // Reference §3.4: the failed turn is settled, so prepareExactCancellation finds nothing unsettled (absent);
    // the ended generation no longer owns it; settling cleared the accepted-identity marker and moved the
    // acceptance phase to `terminal`, so there is no acceptance evidence and step 6 yields `absent`, not
    // `provider_state_lost` (which needs an unsettled accepted turn without a Query, step 11).
    const answer = await session.cancel(turnId);
    assertOk(answer, 'cancel');
    assert.deepEqual(cancelFields(answer), nothingCanceled('absent', turnId));
    assert.deepEqual(
      session.terminalsOf(turnId).map((line) => line.type),
      ['turn_failed'],
      'the turn keeps its one terminal event',
    );
    await assertNextTurnCompletes('after-child-died');
  });

  it('logs every cancel phase as JSON diagnostics and never a prompt, tool input or credential', async () => {
    const turnId = newTurnId('canary');
    const prompt = session.model.prompt(`Create the file ${canary.prompt}.`, {
      prompt: bashCall(`touch ${canary.tool}.txt`),
    });
    assertOk(await session.exec(turnId, prompt), 'exec');
    await session.waitForEvent('approval_requested', turnId);
    const answer = await session.cancel(turnId);
    assertOk(answer, 'cancel');
    const { stderrLines } = session.sidecar;
    const recordsOf = (): Record<string, unknown>[] =>
      stderrLines
        .filter((line) => line.startsWith(`${CANCEL_DIAGNOSTIC_PREFIX} `))
        .map((line, position) => {
          try {
            return JSON.parse(line.slice(CANCEL_DIAGNOSTIC_PREFIX.length + 1)) as Record<string, unknown>;
          } catch {
            throw new Error(`cancel diagnostic line ${position} is not JSON`);
          }
        });
    // stderr and stdout are separate pipes: the last record may arrive just after the ok.
    await pollUntil(
      () =>
        recordsOf().some((record) => record.requestId === answer.id && record.stage === 'cancel_succeeded') ||
        undefined,
      `a cancel_succeeded diagnostic for request ${answer.id}`,
      5_000,
    );
    const records = recordsOf().filter((record) => record.requestId === answer.id);
    assert.deepEqual(
      records.map((record) => record.stage),
      CANCEL_STAGES_AFTER_INTERRUPT_ACK,
    );
    for (const record of records) {
      assert.equal(record.sidecarPid, session.sidecar.pid, `${String(record.stage)} names the sidecar pid`);
      assert.equal(record.agentSessionId, session.agentSessionId, `${String(record.stage)} names the session`);
      assert.equal(record.turnId, turnId, `${String(record.stage)} names the turn`);
      assert.equal(typeof record.providerSessionId, 'string', `${String(record.stage)} names the provider session`);
      if (record.stage !== 'cancel_received' && record.stage !== 'cancel_succeeded') {
        assert.equal(typeof record.generationId, 'number', `${String(record.stage)} names the Query generation`);
      }
    }
    const succeeded = records.at(-1) ?? {};
    assert.equal(typeof succeeded.durationMs, 'number');
    assert.deepEqual(
      {
        canceled: succeeded.canceled,
        disposition: succeeded.disposition,
        dispatchPhase: succeeded.dispatchPhase,
        providerTurnId: succeeded.providerTurnId,
      },
      {
        canceled: true,
        disposition: 'provider_active',
        dispatchPhase: answer.payload.dispatchPhase,
        providerTurnId: answer.payload.providerTurnId,
      },
    );

    const stderr = stderrLines.join('\n');
    for (const [where, value] of Object.entries(canary)) {
      assert.equal(stderr.includes(value), false, `the ${where} canary leaked into the sidecar's stderr`);
    }
  });

  it('wrote only well-formed protocol lines whose events match their schemas', () => {
    assert.deepEqual(session.sidecar.protocolErrors, []);
  });
});

/** The cancel fields of an answer that found no turn of its own to stop. */
function nothingCanceled(disposition: 'absent' | 'mismatch', turnId: string): Record<string, unknown> {
  return { canceled: false, disposition, turnId, providerTurnId: '' };
}

/** The cancel result, checked against the protocol's result schema. */
function cancelFields(answer: Answer): Record<string, unknown> {
  const parsed = cancelResultSchema.safeParse(answer.payload);
  assert.ok(parsed.success, `cancel result does not match the protocol: ${JSON.stringify(answer.payload)}`);
  const { canceled, disposition, turnId, providerTurnId } = parsed.data;
  return { canceled, disposition, turnId, providerTurnId };
}

function assertPostIdentityPhase(answer: Answer): void {
  assert.ok(
    POST_IDENTITY_PHASES.includes(String(answer.payload.dispatchPhase)),
    `dispatchPhase ${String(answer.payload.dispatchPhase)} must be a phase after the identity was bound`,
  );
}

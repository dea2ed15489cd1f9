import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertOk, type ControlSession, newTurnId, openControlSession } from './controlSession.ts';
import { slowText } from './scriptedModel.ts';

/*
 * What `inspect_fork_checkpoints` lists after the two things that make Claude Code write user messages of its
 * own into the transcript: an interrupted request (the `[Request interrupted by user]` marker, written by a
 * guide and by a cancel) and a guide's prompt. A host maps the list to its turns by the ids events named.
 */
describe('inspect_fork_checkpoints after a guide and a cancel, through the real sidecar and Claude Code', () => {
  let session: ControlSession;

  before(async () => {
    session = await openControlSession();
  });

  after(async () => {
    await session?.close();
  });

  const text = (answer: string) => ({ prompt: { content: [{ type: 'text' as const, text: answer }] } });

  it('lists every turn and each guide prompt, both named by events, and no interruption marker', async () => {
    const guidedTurnId = newTurnId('guided');
    assertOk(await session.exec(guidedTurnId, session.model.prompt('Stream.', { prompt: slowText(100) })), 'exec');
    await session.waitForEvent('assistant_delta', guidedTurnId);
    const guidance = session.model.prompt('Change course.', text('Following the guidance.'));
    const guide = await session.sidecar.request(
      'guide',
      { agentSessionId: session.agentSessionId, prompt: guidance, content: [] },
      { timeoutMs: 15_000 },
    );
    assertOk(guide, 'guide');
    assert.equal((await session.waitForTerminal(guidedTurnId)).type, 'turn_completed');

    const canceledTurnId = newTurnId('canceled');
    assertOk(await session.exec(canceledTurnId, session.model.prompt('Stream.', { prompt: slowText(100) })), 'exec');
    await session.waitForEvent('assistant_delta', canceledTurnId);
    const cancel = await session.cancel(canceledTurnId);
    assertOk(cancel, 'cancel');
    assert.equal(cancel.payload.disposition, 'provider_active');
    assert.equal((await session.waitForTerminal(canceledTurnId)).type, 'turn_canceled');

    const lastTurnId = newTurnId('last');
    assertOk(await session.exec(lastTurnId, session.model.prompt('Say done.', text('Done.'))), 'exec');
    assert.equal((await session.waitForTerminal(lastTurnId)).type, 'turn_completed');

    const started = session.sidecar.log.find((line) => line.id === undefined && line.type === 'session_started');
    const inspected = await session.sidecar.request('inspect_fork_checkpoints', {
      providerSessionId: String(started?.payload.providerSessionId),
      cwd: session.home.cwd,
    });
    assertOk(inspected, 'inspect_fork_checkpoints');
    const listed = inspected.payload.providerTurnIds as string[];

    const turnIds = [guidedTurnId, canceledTurnId, lastTurnId].map((turnId) =>
      String(session.eventsOf('provider_turn_identity_resolved', turnId)[0]?.payload.providerTurnId),
    );
    const guidedCheckpoints = session
      .eventsOf('provider_turn_checkpoint', guidedTurnId)
      .map((line) => String(line.payload.providerCheckpointMessageId));
    const guidePrompts = listed.filter((id) => !turnIds.includes(id));
    assert.deepEqual(
      listed.filter((id) => turnIds.includes(id)),
      turnIds,
      'every turn, in order, under the providerTurnId its provider_turn_identity_resolved named',
    );
    assert.equal(guidePrompts.length, 1, `besides the turns only the guide prompt: ${JSON.stringify(listed)}`);
    assert.ok(
      guidedCheckpoints.includes(guidePrompts[0] ?? ''),
      'the guide prompt is a provider_turn_checkpoint of the guided turn',
    );
    assert.deepEqual(
      listed,
      [turnIds[0], guidePrompts[0], turnIds[1], turnIds[2]],
      'the two interruption markers (guide, cancel) are not listed',
    );
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionCommand } from '../projection/sessionCommand.ts';
import type { SessionRecord } from '../store/records.ts';
import type { OutsideChange } from './outsideChanges.ts';
import { sessionHarness } from './testing/sessionHarness.ts';

/* What a `HostSession` does with a transcript that grew outside Outrigger, over a scripted sidecar. */

function watched() {
  const changes: (OutsideChange | undefined)[] = [];
  const calls = { checks: 0, ends: 0 };
  const transcript = {
    turnEnded: async (_session: SessionRecord) => {
      calls.ends += 1;
    },
    check: async () => {
      calls.checks += 1;
      return changes.shift();
    },
  };
  return { transcript, changes, calls };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function setUp() {
  const watch = watched();
  const h = sessionHarness({ deps: { transcript: watch.transcript } });
  const requests = (type: string) => h.sidecars.flatMap((fake) => fake.requests.filter((r) => r.type === type));
  const complete = async (turnId: string) => {
    const sidecar = h.sidecars.at(-1)!;
    sidecar.emit('provider_turn_identity_resolved', { agentSessionId: 's1', turnId, providerTurnId: `p-${turnId}` });
    sidecar.emit('turn_completed', {
      agentSessionId: 's1',
      turnId,
      providerTurnId: `p-${turnId}`,
      stopReason: 'end_turn',
    });
    await until(() => h.ledger.turn(turnId)?.status === 'completed', `${turnId} completed`);
    await h.session.queue.drained();
  };
  const kinds = () => h.ledger.commands.map((command: SessionCommand) => command.type);
  return { ...h, ...watch, requests, complete, kinds };
}

test('what grew outside is shown before the next turn, whose Claude Code is started again to read it', async () => {
  const h = setUp();
  try {
    const first = await h.session.postTurn({ prompt: 'one' });
    await h.complete(first.turnId);
    assert.equal(h.calls.ends, 1, 'a turn’s end records the transcript as Outrigger’s own');
    assert.equal(h.requests('start').length, 1);

    h.changes.push({
      text: 'The conversation went on outside Outrigger',
      mark: 'm2',
      turnId: first.turnId,
      messages: 2,
      ended: true,
    });
    const second = await h.session.postTurn({ prompt: 'two' });
    const applied = h.ledger.commands.filter((command) => command.type === 'outsideChanges');
    assert.deepEqual(applied, [
      { type: 'outsideChanges', turnId: first.turnId, text: 'The conversation went on outside Outrigger', mark: 'm2' },
    ]);
    const order = h.kinds();
    assert.ok(order.lastIndexOf('outsideChanges') < order.lastIndexOf('acceptTurn'), 'the notice comes first');
    assert.equal(h.requests('close').length, 1, 'the live Query holding the old conversation is closed');
    assert.equal(h.requests('start').length, 2, 'and the turn starts Claude Code again');
    assert.equal(h.requests('exec').at(-1)?.payload.turnId, second.turnId);

    await h.complete(second.turnId);
    const third = await h.session.postTurn({ prompt: 'three' });
    assert.equal(h.requests('start').length, 2, 'nothing grew: the same Claude Code serves the next turn');
    assert.equal(h.kinds().filter((kind) => kind === 'outsideChanges').length, 1);
    await h.complete(third.turnId);
  } finally {
    await h.close();
  }
});

test('a session with no turn yet shows it under its first turn; an idle one shows it once the writer paused', async () => {
  const h = setUp();
  try {
    h.changes.push({ text: 'grew', mark: 'm1', turnId: null, messages: 1, ended: true });
    const first = await h.session.postTurn({ prompt: 'one' });
    const notice = h.ledger.commands.find((command) => command.type === 'outsideChanges');
    assert.deepEqual(notice, { type: 'outsideChanges', turnId: first.turnId, text: 'grew', mark: 'm1' });
    await h.complete(first.turnId);

    const checks = h.calls.checks;
    h.changes.push({ text: 'grew again', mark: 'm3', turnId: first.turnId, messages: 1, ended: true });
    h.session.transcriptChanged();
    h.session.transcriptChanged();
    await until(() => h.kinds().filter((kind) => kind === 'outsideChanges').length === 2, 'the idle notice');
    assert.equal(h.calls.checks, checks + 1, 'several changes in a row are looked at once');
    assert.equal(h.requests('close').length, 1);
  } finally {
    await h.close();
  }
});

test('a transcript that cannot be read does not refuse the turn', async () => {
  const h = setUp();
  h.transcript.check = async () => {
    throw new Error('the worker died');
  };
  try {
    const turn = await h.session.postTurn({ prompt: 'one' });
    assert.equal(h.requests('exec').at(-1)?.payload.turnId, turn.turnId);
  } finally {
    await h.close();
  }
});

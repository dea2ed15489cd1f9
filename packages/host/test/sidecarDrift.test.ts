import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertContractEvents, readFixture, replayFixture } from './fixtures/fixtureReplay.ts';
import { type RecordedLine, recordScenarios } from './fixtures/sidecarRecorder.ts';

/*
 * The projection's fixtures were recorded from the real sidecar. This re-records one scenario with
 * the real sidecar, Claude Code and mock-anthropic on every run and compares it with the committed
 * fixture, so a change in what the sidecar emits shows up here (re-record with
 * `npx node packages/host/test/fixtures/sidecarRecorder.ts` once the change is understood).
 */

/** Events whose count or place depends on timing (refreshes, diagnostics), left out of the comparison. */
const timing = new Set([
  'sdk_lifecycle_observed',
  'session_state',
  'session_title_updated',
  'usage_updated',
  'commands_updated',
  'speed_updated',
  'provider_turn_checkpoint',
]);

/** The order of kinds of things that happened: requests and events, repeats (deltas) folded into one. */
function shape(lines: readonly RecordedLine[]): string[] {
  const kinds = lines.filter((line) => !timing.has(line.type)).map((line) => `${line.kind}:${line.type}`);
  return kinds.filter((kind, index) => kind !== kinds[index - 1]);
}

async function projected(lines: readonly RecordedLine[]) {
  const replayed = await replayFixture(lines);
  try {
    const events = await replayed.sessionEvents();
    assertContractEvents(events, await replayed.hostEvents());
    const rows = (await replayed.store.listMessages(replayed.sessionId, { limit: 100 })).messages;
    return {
      rows: rows.map((row) => [row.role, row.status, JSON.stringify(row.content)]),
      turns: (await replayed.store.listTurns(replayed.sessionId)).map((turn) => [
        turn.kind,
        turn.status,
        turn.stopReason,
      ]),
      status: replayed.ledger.session.status,
    };
  } finally {
    await replayed.close();
  }
}

test('the real sidecar still emits what the plain-answer fixture holds', { timeout: 120_000 }, async () => {
  const recorded = (await recordScenarios(['plain'])).get('plain')!;
  const fixture = readFixture('plain');
  assert.deepEqual(shape(recorded), shape(fixture));
  assert.deepEqual(await projected(recorded), await projected(fixture));
});

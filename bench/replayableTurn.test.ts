import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadSdkFixture, type SdkFixtureEntry } from '@outrigger/claude-sdk-sidecar/bench';
import { ReplayableTurn } from './replayableTurn.ts';

const messages = (entries: readonly SdkFixtureEntry[]) =>
  entries.flatMap((entry) => ('message' in entry ? [entry.message] : []));

function toolUseIds(entries: readonly SdkFixtureEntry[]): { used: string[]; answered: string[]; hooked: string[] } {
  const used: string[] = [];
  const answered: string[] = [];
  const hooked: string[] = [];
  for (const entry of entries) {
    if ('hook' in entry) {
      if (entry.toolUseId) hooked.push(entry.toolUseId);
      continue;
    }
    const message = entry.message;
    if (message.type !== 'assistant' && message.type !== 'user') continue;
    const content = message.message.content;
    if (typeof content === 'string') continue;
    for (const block of content) {
      if (block.type === 'tool_use') used.push(block.id);
      if (block.type === 'tool_result') answered.push(block.tool_use_id);
    }
  }
  return { used, answered, hooked };
}

test('every replay has fresh message uuids, API message ids and tool_use ids', () => {
  const capture = loadSdkFixture('text-and-tool');
  const turn = new ReplayableTurn(capture);
  const replays = [turn.replay(), turn.replay()];
  const uuids = [capture, ...replays].map((entries) => messages(entries).map((message) => message.uuid));
  assert.equal(new Set(uuids.flat()).size, uuids.flat().length, 'a message uuid repeats across replays');

  const apiIds = [capture, ...replays].map((entries) =>
    messages(entries).flatMap((message) => (message.type === 'assistant' ? [message.message.id] : [])),
  );
  for (const replayIds of apiIds.slice(1)) {
    for (const id of replayIds) assert.ok(!apiIds[0]?.includes(id), `replay reuses API message id ${id}`);
  }
  const [first, second] = replays.map(toolUseIds);
  assert.notDeepEqual(first?.used, toolUseIds(capture).used);
  assert.notDeepEqual(second?.used, first?.used);
  assert.ok(turn.renewedIds > 0);
});

test('a replay keeps the capture consistent: an id renewed once is renewed the same everywhere', () => {
  const turn = new ReplayableTurn(loadSdkFixture('text-and-tool'));
  const { used, answered, hooked } = toolUseIds(turn.replay());
  assert.equal(used.length, 1);
  assert.deepEqual(answered, used, 'the tool_result answers the renewed tool_use');
  assert.deepEqual(hooked, used, 'the hook call names the renewed tool_use');
});

test('a replay differs from the capture only in its ids', () => {
  const capture = loadSdkFixture('todowrite');
  const replay = new ReplayableTurn(capture).replay();
  assert.notEqual(JSON.stringify(replay), JSON.stringify(capture));
  assert.equal(canonical(replay), canonical(capture));
});

/** The JSON with every id-shaped token numbered by first appearance, so two captures compare by structure. */
function canonical(entries: readonly SdkFixtureEntry[]): string {
  const numbers = new Map<string, string>();
  return JSON.stringify(entries).replace(
    /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?:msg|toolu)_fixture_\w+/g,
    (id) => {
      let number = numbers.get(id);
      if (number === undefined) {
        number = `id-${numbers.size}`;
        numbers.set(id, number);
      }
      return number;
    },
  );
}

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import type { EmitEvent } from '@outrigger/protocol';
import { ManualTimers } from '../continuation/manualTimers.ts';
import { consumingFakeGeneration } from '../testing/fakeGeneration.ts';
import { successResult } from '../testing/sdkMessageBuilders.ts';
import type { ClaudeQuery } from './claudeQuery.ts';
import { SettledSessionRefresh } from './settledSessionRefresh.ts';

const QUIET_MS = 250;

interface Emitted {
  type: string;
  payload: Record<string, unknown>;
}

/** A refresh on manual time over a Query whose context snapshot reports `usedTokens` (one more per read). */
function rig(options: { title?: () => Promise<string | undefined> } = {}) {
  const events: Emitted[] = [];
  const emit: EmitEvent = (type, payload) => events.push({ type, payload: payload as Record<string, unknown> });
  const timers = new ManualTimers();
  const { generation, query } = consumingFakeGeneration(1);
  let reads = 0;
  let snapshot: () => Promise<unknown> = async () => ({ totalTokens: 1_000 + reads, maxTokens: 200_000 });
  const claudeQuery: ClaudeQuery = query;
  claudeQuery.getContextUsage = () => {
    reads++;
    return snapshot();
  };
  const titleReads: string[] = [];
  const refresh = new SettledSessionRefresh({
    emit,
    quietMs: QUIET_MS,
    timers,
    readSessionTitle: async (request) => {
      titleReads.push(request.providerSessionId);
      return options.title ? options.title() : undefined;
    },
    session: () => ({ providerSessionId: 'provider-1', cwd: '/project' }),
  });
  const settled = (turnId: string) => ({ result: successResult() as SDKResultMessage, turnId, generation });
  /** Lets the refresh's awaited reads finish. */
  const flush = () => new Promise((resolve) => setImmediate(resolve));
  return {
    events,
    timers,
    refresh,
    generation,
    settled,
    flush,
    titleReads,
    reads: () => reads,
    setSnapshot: (next: () => Promise<unknown>) => {
      snapshot = next;
    },
    usage: () => events.filter((event) => event.type === 'usage_updated').map((event) => event.payload),
  };
}

test('the context snapshot is read only once the session stayed quiet after the result', async () => {
  const r = rig();
  r.refresh.afterResult(r.settled('t1'));
  r.timers.advance(QUIET_MS - 1);
  await r.flush();
  assert.equal(r.reads(), 0, 'nothing is asked of Claude Code during the quiet period');
  assert.deepEqual(r.usage(), []);
  r.timers.advance(1);
  await r.flush();
  assert.equal(r.reads(), 1);
  assert.deepEqual(r.usage(), [
    { turnId: 't1', contextWindow: { usedTokens: 1_001, totalTokens: 200_000, compactsAutomatically: false } },
  ]);
});

test('a prompt within the quiet period skips the refresh; the next result refreshes for its own turn', async () => {
  const r = rig();
  r.refresh.afterResult(r.settled('t1'));
  r.timers.advance(QUIET_MS / 2);
  r.refresh.onPrompt();
  r.timers.advance(QUIET_MS * 4);
  await r.flush();
  assert.equal(r.reads(), 0, 'the skipped refresh never asks Claude Code');
  assert.deepEqual(r.titleReads, [], 'nor reads the title');

  r.refresh.afterResult(r.settled('t2'));
  r.timers.advance(QUIET_MS);
  await r.flush();
  assert.deepEqual(
    r.usage().map((payload) => payload.turnId),
    ['t2'],
    'one snapshot, for the turn the session went quiet after',
  );
});

test('a later result restarts the quiet period and only its refresh runs', async () => {
  const r = rig();
  r.refresh.afterResult(r.settled('t1'));
  r.timers.advance(QUIET_MS - 10);
  r.refresh.afterResult(r.settled('t2'));
  r.timers.advance(QUIET_MS - 10);
  await r.flush();
  assert.equal(r.reads(), 0, 'the second result started the quiet period over');
  r.timers.advance(10);
  await r.flush();
  assert.deepEqual(
    r.usage().map((payload) => payload.turnId),
    ['t2'],
  );
});

test('a slow snapshot overtaken by a newer refresh is not published', async () => {
  const r = rig();
  let answerFirst: (value: unknown) => void = () => undefined;
  r.setSnapshot(() => new Promise((resolve) => (answerFirst = resolve)));
  r.refresh.afterResult(r.settled('t1'));
  r.timers.advance(QUIET_MS);
  r.setSnapshot(async () => ({ totalTokens: 2_000 }));
  r.refresh.afterResult(r.settled('t2'));
  r.timers.advance(QUIET_MS);
  await r.flush();
  answerFirst({ totalTokens: 1_000 });
  await r.flush();
  assert.deepEqual(r.usage(), [{ turnId: 't2', contextWindow: { usedTokens: 2_000, compactsAutomatically: false } }]);
});

test('a Query out of service is not asked: the result usage is published instead', async () => {
  const r = rig();
  r.generation.revoke();
  r.refresh.afterResult(r.settled('t1'));
  r.timers.advance(QUIET_MS);
  await r.flush();
  assert.equal(r.reads(), 0);
  assert.deepEqual(r.usage(), [
    { turnId: 't1', usage: { input_tokens: 1, output_tokens: 1 }, modelUsage: {}, totalCostUsd: 0 },
  ]);
});

test('the title is published once per change, normalised, before the usage', async () => {
  let title = '  Plan   the\nrelease ';
  const r = rig({ title: async () => title });
  for (const turnId of ['t1', 't2']) {
    r.refresh.afterResult(r.settled(turnId));
    r.timers.advance(QUIET_MS);
    await r.flush();
  }
  title = 'Renamed';
  r.refresh.afterResult(r.settled('t3'));
  r.timers.advance(QUIET_MS);
  await r.flush();
  assert.deepEqual(
    r.events.map((event) => (event.type === 'session_title_updated' ? `title:${event.payload.title}` : event.type)),
    ['title:Plan the release', 'usage_updated', 'usage_updated', 'title:Renamed', 'usage_updated'],
  );
});

test('after stop nothing is read or published', async () => {
  const r = rig({ title: async () => 'A title' });
  r.refresh.afterResult(r.settled('t1'));
  r.refresh.stop();
  r.timers.advance(QUIET_MS);
  r.refresh.afterResult(r.settled('t2'));
  r.timers.advance(QUIET_MS);
  await r.flush();
  assert.equal(r.timers.pending, 0, 'no timer is left behind');
  assert.deepEqual(r.events, []);
});

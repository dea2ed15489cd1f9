import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PermissionMode } from '@anthropic-ai/claude-agent-sdk';
import type { ApplySettingsPayload } from '@outrigger/protocol';
import type { ResolvedStartOptions } from '../config/startOptions.ts';
import type { ClaudeQuery } from './claudeQuery.ts';
import { LiveSessionSettings } from './liveSessionSettings.ts';

const CATALOGUE = [
  { value: 'default', displayName: 'Default', description: 'Recommended' },
  { value: 'claude-sonnet-test', displayName: 'Sonnet', description: 'Fast' },
];

function startOptions(fields: Partial<ResolvedStartOptions> = {}): ResolvedStartOptions {
  return {
    queryOptions: {},
    permissionMode: 'plan',
    basePermissionMode: 'acceptEdits',
    planMode: true,
    canBypassPermissions: false,
    ...fields,
  };
}

/** A live Query recording every control call; `applyFlags` replaces its applyFlagSettings. */
function liveQuery(applyFlags?: ClaudeQuery['applyFlagSettings']) {
  const calls: unknown[][] = [];
  const query: ClaudeQuery = {
    async *[Symbol.asyncIterator]() {},
    setPermissionMode: async (mode: PermissionMode) => void calls.push(['setPermissionMode', mode]),
    setModel: async (model?: string) => void calls.push(['setModel', model]),
    applyFlagSettings:
      applyFlags ?? (async (settings: Record<string, unknown>) => void calls.push(['applyFlagSettings', settings])),
  };
  return { query, calls };
}

function settings(): LiveSessionSettings {
  const live = new LiveSessionSettings(undefined);
  live.started(startOptions());
  live.replaceCatalogue(CATALOGUE);
  return live;
}

const payload = (fields: Omit<ApplySettingsPayload, 'agentSessionId'>): ApplySettingsPayload => ({
  agentSessionId: 's1',
  ...fields,
});

test('leaving plan mode returns to the base mode, live and for the next Query', async () => {
  const live = settings();
  const { query, calls } = liveQuery();
  assert.equal(live.permissionMode, 'plan', 'the first Query starts in plan mode');
  await live.apply(payload({ planMode: false }), query, () => assert.fail('no new Query is needed'));
  assert.deepEqual(calls, [['setPermissionMode', 'acceptEdits']]);
  assert.equal(live.createTime().permissionMode, 'acceptEdits');
});

test('bypassPermissions is refused unless the start options allow it', async () => {
  const live = settings();
  const { query, calls } = liveQuery();
  await live.apply(payload({ permissionMode: 'bypassPermissions' }), query, () => undefined);
  assert.deepEqual(calls, [['setPermissionMode', 'default']]);
});

test('a model is resolved through the catalogue; the default model is left to Claude Code', async () => {
  const live = settings();
  const { query, calls } = liveQuery();
  await live.apply(payload({ model: 'sonnet' }), query, () => undefined);
  assert.equal(live.createTime().model, 'claude-sonnet-test');
  assert.equal(live.observeEffectiveModel('claude-sonnet-test-20260101'), true);
  assert.equal(live.observeEffectiveModel('claude-sonnet-test-20260101'), false, 'an unchanged model reports nothing');
  const reported = live.reported();
  assert.equal(reported.model, 'claude-sonnet-test', 'the reported model is the selection');
  assert.equal(reported.configOptions?.[0]?.currentValue, 'claude-sonnet-test');
  assert.equal(reported.configOptions?.[0]?.effectiveValue, 'claude-sonnet-test-20260101', 'what Claude Code runs');
  await live.apply(payload({ model: 'default' }), query, () => undefined);
  assert.deepEqual(calls, [
    ['setModel', 'claude-sonnet-test'],
    ['setModel', undefined],
  ]);
  assert.equal(live.createTime().model, undefined);
  assert.equal(live.reported().configOptions?.[0]?.currentValue, 'default');
  assert.equal(live.reported().model, 'default', 'no selection reads as the default');
  assert.equal(
    live.reported().configOptions?.[0]?.effectiveValue,
    undefined,
    'a new selection clears the effective model',
  );
});

test('flag settings go to the live Query and are kept for the next one', async () => {
  const live = settings();
  const { query, calls } = liveQuery();
  await live.apply(payload({ effort: 'high' }), query, () => assert.fail('the live Query took them'));
  await live.apply(payload({ speed: 'fast' }), query, () => assert.fail('the live Query took them'));
  assert.deepEqual(calls, [
    ['applyFlagSettings', { effortLevel: 'high' }],
    ['applyFlagSettings', { fastMode: true }],
  ]);
  assert.deepEqual(live.createTime().flagSettings, { effortLevel: 'high', fastMode: true });
});

test('flags the live Query cannot take ask for a new Query; a refusal is still an error', async () => {
  const live = settings();
  let needsNewQuery = 0;
  const without: ClaudeQuery = { async *[Symbol.asyncIterator]() {} };
  await live.apply(payload({ effort: 'low' }), without, () => needsNewQuery++);
  assert.equal(needsNewQuery, 1, 'a Query without applyFlagSettings');
  const refusing = liveQuery(async () => {
    throw new Error('flag settings refused');
  });
  await assert.rejects(
    live.apply(payload({ effort: 'high' }), refusing.query, () => needsNewQuery++),
    /flag settings refused/,
  );
  assert.equal(needsNewQuery, 2, 'a Query that refuses them');
  assert.deepEqual(live.createTime().flagSettings, { effortLevel: 'high' });
});

test('without a live Query the settings wait for the next one', async () => {
  const live = settings();
  await live.apply(payload({ effort: 'max', permissionMode: 'acceptEdits' }), undefined, () =>
    assert.fail('nothing to replace'),
  );
  assert.deepEqual(live.createTime(), { permissionMode: 'acceptEdits', flagSettings: { effortLevel: 'max' } });
});

test('a model Claude Code refuses is an error at stage model, and the selection stays as it was', async () => {
  const live = settings();
  const refusing: ClaudeQuery = {
    async *[Symbol.asyncIterator]() {},
    setModel: async (model?: string) => {
      if (model === 'gpt-4o') throw new Error("Model 'gpt-4o' not found");
    },
  };
  await assert.rejects(
    live.apply(payload({ model: 'gpt-4o' }), refusing, () => undefined),
    (error: unknown) => {
      assert.equal((error as { stage?: unknown }).stage, 'model');
      assert.match((error as Error).message, /Claude Code rejected the model "gpt-4o": Model 'gpt-4o' not found/);
      return true;
    },
  );
  assert.equal(live.reported().model, 'default');
  assert.equal(live.createTime().model, undefined, 'the next Query is not created with it either');
});

test('a start’s model that Claude Code does not offer of its own is checked by Claude Code; one it offers is not', async () => {
  const checked: (string | undefined)[] = [];
  const query: ClaudeQuery = {
    async *[Symbol.asyncIterator]() {},
    setModel: async (model?: string) => {
      checked.push(model);
      if (model === 'gpt-4o') throw new Error("Model 'gpt-4o' not found");
    },
  };
  const typo = new LiveSessionSettings('gpt-4o');
  typo.started(startOptions());
  // Claude Code lists the Query's own model too, named by its value.
  typo.replaceCatalogue([...CATALOGUE, { value: 'gpt-4o', displayName: 'gpt-4o', description: 'Custom model' }]);
  await assert.rejects(
    typo.verifyStartModel(query),
    (error: unknown) => (error as { stage?: unknown }).stage === 'model',
  );
  assert.deepEqual(checked, [undefined, 'gpt-4o'], 'away and back, so Claude Code checks it');

  checked.length = 0;
  const listed = new LiveSessionSettings('Sonnet');
  listed.started(startOptions());
  listed.replaceCatalogue(CATALOGUE);
  await listed.verifyStartModel(query);
  assert.deepEqual(checked, [], 'a model Claude Code offers needs no check');
});

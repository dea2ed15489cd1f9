import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type SessionSettings, sessionSettingsSchema } from '@outrigger/host-api';
import { configOptionsOf, modePatchOf, modeStateOf, settingsPatchOf } from './sessionConfig.ts';

const settings = (fields: Partial<SessionSettings> = {}): SessionSettings =>
  sessionSettingsSchema.parse({
    model: 'default',
    permissionMode: 'default',
    planMode: false,
    effort: null,
    ...fields,
  });

test('the modes are the host’s permission modes; plan mode reads as plan either way', () => {
  const state = modeStateOf(settings());
  assert.deepEqual(
    state.availableModes.map((mode) => mode.id),
    ['default', 'acceptEdits', 'plan', 'bypassPermissions', 'auto'],
  );
  assert.equal(state.currentModeId, 'default');
  assert.equal(modeStateOf(settings({ planMode: true })).currentModeId, 'plan');
  assert.deepEqual(modePatchOf('plan'), { permissionMode: 'plan', planMode: true });
  assert.deepEqual(modePatchOf('acceptEdits'), { permissionMode: 'acceptEdits', planMode: false });
  assert.throws(() => modePatchOf('yolo'), /Unknown mode "yolo"/);
});

test('config options: mode, model (the current one always offered) and effort; patches for each, errors named', () => {
  const options = configOptionsOf(settings({ model: 'claude-custom', effort: 'high' }), []);
  assert.deepEqual(
    options.map((option) => [option.id, option.currentValue]),
    [
      ['mode', 'default'],
      ['model', 'claude-custom'],
      ['effort', 'high'],
    ],
  );
  const model = options.find((option) => option.id === 'model');
  assert.ok(
    model?.type === 'select' && model.options.some((entry) => 'value' in entry && entry.value === 'claude-custom'),
  );
  assert.deepEqual(settingsPatchOf('effort', 'max'), { effort: 'max' });
  assert.deepEqual(settingsPatchOf('model', 'opus'), { model: 'opus' });
  assert.deepEqual(settingsPatchOf('mode', 'plan'), { permissionMode: 'plan', planMode: true });
  assert.throws(() => settingsPatchOf('effort', 'huge'), /Unknown effort "huge"/);
  assert.throws(() => settingsPatchOf('effort', 'default'), /cannot return/);
  assert.throws(() => settingsPatchOf('model', 'gpt', options), /Unknown model "gpt"/);
  assert.throws(() => settingsPatchOf('colour', 'red'), /Unknown config option "colour"/);
  assert.throws(() => settingsPatchOf('mode', true), /takes a value id/);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testSession } from '../store/testRecords.ts';
import { knownModels } from './knownModels.ts';

const modelOption = (values: string[]) => ({
  id: 'model',
  name: 'Model',
  type: 'select',
  currentValue: 'default',
  options: values.map((value) => ({ value, name: value.toUpperCase(), description: `${value} described` })),
});

test('the models offered for a new session are the newest report, with descriptions; none before any report', () => {
  assert.deepEqual(knownModels([]), { models: [], reportedAt: null });
  const silent = { ...testSession('a'), updatedAt: 900 };
  const older = { ...testSession('b'), updatedAt: 100, configOptions: [modelOption(['default', 'opus'])] };
  const newer = { ...testSession('c'), updatedAt: 500, configOptions: [modelOption(['default', 'fable'])] };
  assert.deepEqual(knownModels([silent]), { models: [], reportedAt: null }, 'a session that reported none');
  assert.deepEqual(knownModels([older, newer, silent]), {
    models: [
      { value: 'default', name: 'DEFAULT', description: 'default described' },
      { value: 'fable', name: 'FABLE', description: 'fable described' },
    ],
    reportedAt: 500,
  });
});

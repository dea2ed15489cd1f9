import assert from 'node:assert/strict';
import { test } from 'node:test';
import { npmTakenOptions } from './commandLine.ts';

const options = { cwd: { type: 'string' }, 'data-dir': { type: 'string' }, demo: { type: 'boolean' } } as const;

test('outside an npm script nothing is taken, whatever npm_config_* says', () => {
  assert.deepEqual(npmTakenOptions(options, { npm_config_data_dir: '/x' }), { recovered: [], lost: [] });
});

test('`npm start --data-dir=DIR` is recovered as --data-dir=DIR; a flag npm kept as true is recovered', () => {
  const env = { npm_lifecycle_event: 'start', npm_config_data_dir: '/srv/data', npm_config_demo: 'true' };
  assert.deepEqual(npmTakenOptions(options, env), { recovered: ['--data-dir=/srv/data', '--demo'], lost: [] });
});

test('`npm start --data-dir DIR` leaves only `true`: the option is lost, and said so', () => {
  const env = { npm_lifecycle_event: 'start', npm_config_data_dir: 'true', npm_config_cwd: '' };
  assert.deepEqual(npmTakenOptions(options, env), { recovered: [], lost: ['cwd', 'data-dir'] });
});

test("npm's own settings that share no name with an option are ignored", () => {
  const env = { npm_lifecycle_event: 'start', npm_config_cache: '/c', npm_config_user_agent: 'npm/11' };
  assert.deepEqual(npmTakenOptions(options, env), { recovered: [], lost: [] });
});

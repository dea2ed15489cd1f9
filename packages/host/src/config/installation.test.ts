import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DATA_DIR_VARIABLE,
  defaultDataDir,
  defaultSessionCwd,
  platformDataDir,
  REPOSITORY_DATA_DIR,
  RUNS_FROM_SOURCES,
} from './installation.ts';

const home = '/home/ann';

test('from the repository the data lives in its .data; installed, in the platform data directory', () => {
  assert.equal(RUNS_FROM_SOURCES, true);
  assert.match(REPOSITORY_DATA_DIR, /\/\.data$/);
  assert.equal(defaultDataDir({ env: {}, platform: 'linux', home, fromSources: true }), REPOSITORY_DATA_DIR);
  assert.equal(
    defaultDataDir({ env: {}, platform: 'linux', home, fromSources: false }),
    '/home/ann/.local/share/outrigger',
  );
});

test('the platform directories: XDG_DATA_HOME when absolute, macOS Application Support, Windows LOCALAPPDATA', () => {
  assert.equal(platformDataDir({ env: { XDG_DATA_HOME: '/xdg' }, platform: 'linux', home }), '/xdg/outrigger');
  // The XDG spec: a relative value is invalid and ignored.
  assert.equal(
    platformDataDir({ env: { XDG_DATA_HOME: 'rel' }, platform: 'linux', home }),
    '/home/ann/.local/share/outrigger',
  );
  assert.equal(platformDataDir({ env: {}, platform: 'freebsd', home }), '/home/ann/.local/share/outrigger');
  assert.equal(
    platformDataDir({ env: { XDG_DATA_HOME: '/xdg' }, platform: 'darwin', home }),
    '/home/ann/Library/Application Support/Outrigger',
  );
  assert.match(platformDataDir({ env: {}, platform: 'win32', home }), /AppData[\\/]Local[\\/]Outrigger$/);
});

test('the environment variable overrides both defaults; an empty one is no value', () => {
  for (const fromSources of [true, false]) {
    const env = { [DATA_DIR_VARIABLE]: '/srv/outrigger' };
    assert.equal(defaultDataDir({ env, platform: 'linux', home, fromSources }), '/srv/outrigger');
    const blank = { [DATA_DIR_VARIABLE]: '  ' };
    assert.notEqual(defaultDataDir({ env: blank, platform: 'linux', home, fromSources }), '  ');
  }
});

test('installed, a new session starts where serve was started; the repository keeps its workspace', () => {
  assert.equal(defaultSessionCwd('/home/ann/project', false), '/home/ann/project');
  assert.equal(defaultSessionCwd('/home/ann/project', true), undefined);
});

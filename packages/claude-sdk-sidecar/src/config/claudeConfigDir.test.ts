import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { claudeConfigDir } from './claudeConfigDir.ts';

test('a set CLAUDE_CONFIG_DIR is used trimmed; unset or blank means ~/.claude', () => {
  assert.equal(claudeConfigDir(' /tmp/claude-config '), '/tmp/claude-config');
  assert.equal(claudeConfigDir(undefined), join(homedir(), '.claude'));
  assert.equal(claudeConfigDir('   '), join(homedir(), '.claude'));
});

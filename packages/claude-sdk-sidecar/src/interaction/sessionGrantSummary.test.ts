import assert from 'node:assert/strict';
import { test } from 'node:test';
import { approvalOptions, grantSummary, sessionGrant } from './approvalOptions.ts';

/* "Allow for session" says what it covers: the rules and directories Claude Code suggested, as granted. */

test('the allow_always option names the rules and directories the session grant adds', () => {
  const grant = sessionGrant([
    {
      type: 'addRules',
      rules: [{ toolName: 'Bash', ruleContent: 'npm test:*' }, { toolName: 'WebFetch' }],
      behavior: 'allow',
      destination: 'localSettings',
    },
    { type: 'addDirectories', directories: ['/work/other'], destination: 'session' },
    { type: 'setMode', mode: 'acceptEdits', destination: 'session' },
    { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'rm:*' }], behavior: 'deny', destination: 'session' },
  ]);
  assert.deepEqual(grantSummary(grant), { rules: ['Bash(npm test:*)', 'WebFetch'], directories: ['/work/other'] });
  const [always] = approvalOptions(true, grant);
  assert.deepEqual((always as { sessionGrant?: unknown }).sessionGrant, {
    rules: ['Bash(npm test:*)', 'WebFetch'],
    directories: ['/work/other'],
  });
  assert.deepEqual(grantSummary([]), { rules: [], directories: [] }, 'no suggestion: the exact request only');
  assert.equal(
    approvalOptions(false, grant).some((option) => option.optionId === 'allow_always'),
    false,
  );
});

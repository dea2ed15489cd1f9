import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PermissionUpdate } from '@anthropic-ai/claude-agent-sdk';
import { approvalDecision, denyMessage, isRefusal, sessionGrant } from './approvalOptions.ts';

const submission = (action: string, optionId: string, payload: Record<string, unknown> = {}) => ({
  action,
  optionId,
  payload,
});

describe('approvalDecision', () => {
  it('reads the option first, the action when no option is given, and fails closed otherwise', () => {
    assert.equal(approvalDecision(submission('select', 'allow_always')), 'allow_for_session');
    assert.equal(approvalDecision(submission('allow', '')), 'allow_once');
    assert.equal(approvalDecision(submission('select', 'acceptEdits')), 'allow_once');
    assert.equal(approvalDecision(submission('select', 'reject')), 'deny');
    assert.equal(approvalDecision(submission('select', 'whatever')), 'deny');
    assert.equal(approvalDecision(submission('', '')), 'deny');
  });

  it('lets a refusal win over a contradictory allow, in either field', () => {
    for (const refusal of ['reject', 'reject_once', 'deny', 'decline', 'cancel']) {
      assert.equal(approvalDecision(submission(refusal, 'allow_always')), 'deny', `action ${refusal}`);
      assert.equal(approvalDecision(submission('allow', refusal)), 'deny', `optionId ${refusal}`);
      assert.equal(isRefusal(submission('allow_always', refusal)), true);
    }
    assert.equal(isRefusal(submission('allow', 'allow_always')), false);
    assert.equal(
      approvalDecision(submission('allow', 'allow_always')),
      'allow_for_session',
      'the option picks the allow',
    );
  });
});

describe('denyMessage', () => {
  it('uses a non-blank host message, else the fallback', () => {
    assert.equal(denyMessage(submission('reject', '', { denyMessage: 'no' }), 'fallback'), 'no');
    assert.equal(denyMessage(submission('reject', '', { denyMessage: '  ' }), 'fallback'), 'fallback');
    assert.equal(denyMessage(submission('reject', '', { denyMessage: 42 }), 'fallback'), 'fallback');
  });
});

describe('sessionGrant', () => {
  it('rescopes allow rules and directories to the session and drops mode changes and deny rules', () => {
    const suggestions: PermissionUpdate[] = [
      {
        type: 'addRules',
        rules: [{ toolName: 'Bash', ruleContent: 'ls' }],
        behavior: 'allow',
        destination: 'localSettings',
      },
      { type: 'addRules', rules: [{ toolName: 'Bash' }], behavior: 'deny', destination: 'session' },
      { type: 'addDirectories', directories: ['/tmp/x'], destination: 'userSettings' },
      { type: 'setMode', mode: 'acceptEdits', destination: 'session' },
      { type: 'removeRules', rules: [{ toolName: 'Read' }], behavior: 'deny', destination: 'session' },
    ];
    assert.deepEqual(sessionGrant(suggestions), [
      { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'ls' }], behavior: 'allow', destination: 'session' },
      { type: 'addDirectories', directories: ['/tmp/x'], destination: 'session' },
    ]);
    assert.equal(suggestions[0].destination, 'localSettings', 'the SDK suggestions are not mutated');
    assert.deepEqual(sessionGrant(undefined), []);
  });
});

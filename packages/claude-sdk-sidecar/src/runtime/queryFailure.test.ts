import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLAUDE_CODE_EXITED_CODE } from '@outrigger/protocol';
import { TurnIdentityError } from './providerTurnIdentity.ts';
import { queryEndTerminal } from './queryFailure.ts';

test('a Query that ended because Claude Code exited fails its turn with claude_code_exited; other ends carry no code', () => {
  assert.deepEqual(queryEndTerminal(undefined), {
    type: 'turn_failed',
    error: 'Claude Code process exited unexpectedly',
    code: CLAUDE_CODE_EXITED_CODE,
  });
  assert.deepEqual(queryEndTerminal(new Error('Claude Code process terminated by signal SIGKILL\nstderr: secrets')), {
    type: 'turn_failed',
    error: 'Claude Code process exited unexpectedly (signal SIGKILL)',
    code: CLAUDE_CODE_EXITED_CODE,
  });
  assert.deepEqual(queryEndTerminal(new Error('Claude Code process exited with code 1')), {
    type: 'turn_failed',
    error: 'Claude Code process exited unexpectedly (code 1)',
    code: CLAUDE_CODE_EXITED_CODE,
  });
  assert.deepEqual(queryEndTerminal(new Error('socket hang up')), {
    type: 'turn_failed',
    error: 'Claude SDK query failed: socket hang up',
  });
  const identity = new TurnIdentityError('identity lost', 'absent');
  assert.equal(queryEndTerminal(identity).type, 'turn_failed');
  assert.equal((queryEndTerminal(identity) as { code?: string }).code, undefined);
});

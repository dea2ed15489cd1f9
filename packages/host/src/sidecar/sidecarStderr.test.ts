import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordingLogger } from '../logging/runtimeLogger.ts';
import { SidecarStderr, stderrTailLimits } from './sidecarStderr.ts';

test('diagnostic lines become structured records; a warning severity logs at warn', () => {
  const logger = recordingLogger();
  const stderr = new SidecarStderr(logger, 42);
  stderr.line('CLAUDE_CODE_CANCEL_DIAGNOSTIC {"stage":"cancel_received","turnId":"t1"}');
  stderr.line(
    'CLAUDE_CODE_PROVIDER_TURN_DIAGNOSTIC {"stage":"provider_turn_identity_pending_after_timeout","severity":"warning"}',
  );
  stderr.line('SOMETHING_NEW {"secret":"do not log me"}');
  assert.deepEqual(
    logger.records.map((record) => [record.level, record.fields.event]),
    [
      ['info', 'agent_session.claude_sdk.cancel_diagnostic'],
      ['warn', 'agent_session.claude_sdk.provider_turn_diagnostic'],
      ['debug', 'agent_session.claude_sdk.diagnostic'],
    ],
  );
  assert.deepEqual(logger.records[0]?.fields.diagnostic, { stage: 'cancel_received', turnId: 't1' });
  assert.equal(logger.records[0]?.fields.sidecarPid, 42);
  assert.doesNotMatch(JSON.stringify(logger.records), /do not log me/);
  assert.equal(stderr.tail(), '', 'diagnostics are not part of the tail');
});

test('other lines only feed the tail: bounded, newest kept, control sequences removed', () => {
  const logger = recordingLogger();
  const stderr = new SidecarStderr(logger, 1);
  stderr.line('\u001b[31mError: boom\u001b[0m\u0007');
  assert.equal(stderr.tail(), 'Error: boom');
  for (let index = 0; index < 200; index += 1) stderr.line(`line ${index} ${'x'.repeat(50)}`);
  const tail = stderr.tail();
  assert.ok(tail.length <= stderrTailLimits.chars, `tail has ${tail.length} chars`);
  assert.match(tail, /line 199 x+$/);
  assert.doesNotMatch(tail, /line 100 /);
  assert.deepEqual(logger.records, []);
});

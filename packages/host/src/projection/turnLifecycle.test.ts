import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SidecarEvent } from '@outrigger/protocol';
import { testSession } from '../store/testRecords.ts';
import { type Projection, SessionProjector } from './sessionProjector.ts';
import { hostInterruption } from './turnLifecycle.ts';

/*
 * How a turn the host's end cut off reads (issue 17): a clean stop says the host was stopped, as it stops;
 * a turn a start finds still running says the host crashed or was killed. Its open tool call says the same.
 */

const SESSION = 's1';

/** A projector whose running turn `t1` has an open Bash call `tu` (every projection accepted). */
function runningTurnWithOpenTool(): SessionProjector {
  const projector = SessionProjector.fresh(testSession(SESSION));
  let now = 10_000;
  const tick = () => {
    now += 100;
    return now;
  };
  const accept = (projection: Projection) => projector.accept(projection);
  const sidecar = (type: string, payload: Record<string, unknown>) =>
    accept(
      projector.projectSidecarEvent(
        { type, payload: { agentSessionId: SESSION, ...payload } } as unknown as SidecarEvent,
        tick(),
      ),
    );
  accept(
    projector.project(
      {
        type: 'acceptTurn',
        turnId: 't1',
        prompt: { prompt: 'do it', input: [], attachments: [], clientMessageId: null },
        queued: false,
      },
      tick(),
    ),
  );
  sidecar('provider_turn_identity_resolved', { turnId: 't1', providerTurnId: 'p-t1' });
  sidecar('tool_started', {
    turnId: 't1',
    toolCallId: 'tu',
    callId: 'tu',
    toolName: 'Bash',
    callType: 'command',
    name: 'Bash',
    status: 'streaming',
    input: { command: 'sleep 60', toolName: 'Bash' },
    locations: [],
    metadata: { adapter: 'claude-agent-sdk', toolName: 'Bash' },
  });
  return projector;
}

function interruptedBy(stopping: boolean | undefined) {
  const projector = runningTurnWithOpenTool();
  const projection = projector.project(
    stopping === undefined ? { type: 'recoverAfterRestart' } : { type: 'recoverAfterRestart', stopping },
    20_000,
  );
  const done = projection.unit.sessionEvents?.find((event) => event.type === 'done');
  const tool = projection.unit.messages?.find((row) => row.toolUseId === 'tu');
  const result = tool?.content.find((block) => block.type === 'tool_result');
  return { done: done?.data as { outcome: string; error: { message: string; code: string } }, result };
}

test('a clean stop records the cut-off turn as stopped, not restarted, and its open tool call says so', () => {
  const { done, result } = interruptedBy(true);
  assert.equal(done.outcome, 'interrupted');
  assert.deepEqual(done.error, hostInterruption(true));
  assert.equal(done.error.message, 'the host was stopped while the turn ran');
  assert.equal(done.error.code, 'host_stopped');
  assert.match(JSON.stringify(result), /the host was stopped/);
  assert.doesNotMatch(JSON.stringify(result), /restarted/);
});

test('a turn a start finds still running was cut off by a crash or a kill, and says that', () => {
  for (const stopping of [undefined, false]) {
    const { done, result } = interruptedBy(stopping);
    assert.equal(done.outcome, 'interrupted');
    assert.equal(done.error.message, 'the host crashed or was killed while the turn ran');
    assert.equal(done.error.code, 'host_restarted');
    assert.match(JSON.stringify(result), /the host crashed or was killed/);
  }
});

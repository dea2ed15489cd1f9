import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type RequestPayload, requestTypes, statelessRequestTypes } from '@outrigger/protocol';
import { isStatelessRequest, type RequestHandler, type RequestHandlerTable } from './requestHandler.ts';

test('the stateless reads are told apart from the session requests', () => {
  assert.deepEqual(requestTypes.filter(isStatelessRequest), [...statelessRequestTypes]);
  assert.equal(isStatelessRequest('exec'), false);
});

test('a handler must take its own payload and resolve with its own result (checked by tsc)', async () => {
  const stopped: RequestHandler<'stop_task'> = async (payload) => ({ stopped: payload.taskId !== '' });
  // @ts-expect-error an exec is answered with a bare ok, not a result
  const execWithResult: RequestHandler<'exec'> = async () => ({ stopped: true });
  const readsStopTaskPayload = async (payload: RequestPayload<'stop_task'>): Promise<void> => void payload.taskId;
  // @ts-expect-error a guide handler must take the guide payload
  const guideTakingStopTask: RequestHandler<'guide'> = readsStopTaskPayload;
  // @ts-expect-error every request type of the table needs its handler
  const missingFork: RequestHandlerTable<'fork_session' | 'recover_turn_binding'> = {
    recover_turn_binding: async () => ({ providerSessionId: '', providerTurnId: '', providerCheckpointMessageId: '' }),
  };
  assert.deepEqual(await stopped({ agentSessionId: 's', taskId: 'task-1', toolCallId: '', parentToolUseId: '' }, 'r'), {
    stopped: true,
  });
  assert.deepEqual(
    [typeof execWithResult, typeof guideTakingStopTask, typeof missingFork.recover_turn_binding],
    ['function', 'function', 'function'],
  );
});

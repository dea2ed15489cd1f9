import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SidecarPort } from '../sessions/sessionInSidecar.ts';
import { createFakeSidecar } from './fakeSidecarConnection.ts';
import type { SidecarConnection } from './sidecarConnection.ts';

/*
 * The host's calls to the sidecar are typed from the protocol's own maps: the payload by the request type's
 * schema input, the result by its result schema. Each `@ts-expect-error` below is a mistake the type check
 * must refuse; if one stops being an error, tsc fails on the unused directive.
 */

test('a typed request carries its payload to the sidecar and comes back with its result type', async () => {
  const sidecar = createFakeSidecar((request) =>
    request.type === 'stop_task' ? { ok: { stopped: true } } : { ok: { providerSessionId: 'p-1' } },
  );
  try {
    const started = await sidecar.request('start', { agentSessionId: 's1', providerSessionId: 'p-1', cwd: '/tmp' });
    const providerSessionId: string = started.providerSessionId;
    assert.equal(providerSessionId, 'p-1');

    const stopped = await sidecar.request('stop_task', { agentSessionId: 's1', taskId: 'task-1' });
    const flag: boolean = stopped.stopped;
    assert.equal(flag, true);

    assert.deepEqual(
      sidecar.requests.map((request) => [request.type, request.payload.agentSessionId]),
      [
        ['start', 's1'],
        ['stop_task', 's1'],
      ],
    );
  } finally {
    await sidecar.stop();
  }
});

/** Never called: only what the type check says of these lines matters. */
export function misspelledCalls(connection: SidecarConnection, port: SidecarPort): void {
  // @ts-expect-error a misspelled payload key
  void connection.request('close', { agentSesionId: 's1' });
  // @ts-expect-error a misspelled optional key beside the right ones
  void connection.request('start', { agentSessionId: 's1', providerSessionId: 'p', cwd: '/tmp', restor: true });
  // @ts-expect-error a required key missing (`turnId`)
  void connection.request('exec', { agentSessionId: 's1', prompt: 'hi' });
  // @ts-expect-error a value of the wrong type
  void connection.request('close', { agentSessionId: 42 });
  // @ts-expect-error a request type the protocol does not have
  void connection.request('restart', { agentSessionId: 's1' });
  // @ts-expect-error the same mistakes through the session's port, which adds the generation
  void port.request(1, 'close', { agentSesionId: 's1' });
  void (async () => {
    const answer = await port.request(1, 'cancel', {
      agentSessionId: 's1',
      turnId: 't1',
      interruptTimeoutMs: 1,
      drainTimeoutMs: 1,
    });
    // @ts-expect-error a field the cancel result does not have
    void answer.cancelled;
  })();
}

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SidecarRequestError, type SidecarRequestFailure } from '@outrigger/protocol';
import { HostError } from '../hostError.ts';
import { createFakeSidecar } from './fakeSidecarConnection.ts';
import {
  classifySidecarFailure,
  failureName,
  hostErrorOf,
  isSidecarGone,
  type SidecarFailure,
  turnErrorOf,
} from './sidecarFailure.ts';
import { SidecarUnavailableError } from './sidecarSupervisor.ts';

function requestError(
  reason: SidecarRequestFailure,
  extra: { stage?: string; deliveryDisposition?: string } = {},
): SidecarRequestError {
  return new SidecarRequestError(`sidecar said ${reason}`, {
    reason,
    requestId: 'r1',
    requestType: 'fork_session',
    ...extra,
  });
}

function hostError(error: HostError): { code: string; message: string } {
  return { code: error.code, message: error.message };
}

describe('classifySidecarFailure', () => {
  test('each kind, and the host error it maps to', () => {
    const cases: [unknown, SidecarFailure, { code: string; message: string }][] = [
      [
        new SidecarUnavailableError('spawn_failed', 'the sidecar could not be started'),
        { kind: 'gone', message: 'the sidecar could not be started' },
        { code: 'sidecar_unavailable', message: 'could not fork: the sidecar could not be started' },
      ],
      [
        requestError('closed'),
        { kind: 'gone', message: 'sidecar said closed' },
        { code: 'sidecar_unavailable', message: 'could not fork: sidecar said closed' },
      ],
      [
        requestError('error_response', { stage: 'source_lookup', deliveryDisposition: 'not_started' }),
        {
          kind: 'refused',
          message: 'sidecar said error_response',
          stage: 'source_lookup',
          deliveryDisposition: 'not_started',
        },
        { code: 'sidecar_unavailable', message: 'could not fork: sidecar said error_response' },
      ],
      [
        requestError('timeout'),
        { kind: 'timed_out', message: 'sidecar said timeout' },
        { code: 'sidecar_unavailable', message: 'could not fork: sidecar said timeout' },
      ],
      [
        requestError('aborted'),
        { kind: 'aborted', message: 'sidecar said aborted' },
        { code: 'sidecar_unavailable', message: 'could not fork: sidecar said aborted' },
      ],
      [
        requestError('unexpected_response'),
        { kind: 'unexpected_response', message: 'sidecar said unexpected_response' },
        { code: 'sidecar_unavailable', message: 'could not fork: sidecar said unexpected_response' },
      ],
      [
        new TypeError('a bug, maybe quoting user text'),
        { kind: 'other', error: new TypeError('a bug, maybe quoting user text') },
        { code: 'internal', message: 'could not fork' },
      ],
    ];
    for (const [error, failure, mapped] of cases) {
      const classified = classifySidecarFailure(error);
      assert.deepEqual(classified, failure);
      assert.deepEqual(hostError(hostErrorOf(classified, 'fork')), mapped);
      assert.equal(isSidecarGone(error), failure.kind === 'gone');
    }
  });

  test('a HostError thrown on the way is passed on as it is', () => {
    const thrown = new HostError('session_closed', 'the session is closed');
    assert.equal(hostErrorOf(classifySidecarFailure(thrown), 'start the session'), thrown);
  });

  test('a refusal keeps the stage and disposition the sidecar wrote', async () => {
    const sidecar = createFakeSidecar((request) =>
      request.type === 'cancel' ? { error: 'drain ran out', stage: 'consumption' } : { ok: undefined },
    );
    try {
      const error = await sidecar
        .request('cancel', { agentSessionId: 's', turnId: 't', interruptTimeoutMs: 1, drainTimeoutMs: 1 })
        .then(
          () => assert.fail('the cancel was refused'),
          (caught: unknown) => caught,
        );
      assert.deepEqual(classifySidecarFailure(error), {
        kind: 'refused',
        message: 'drain ran out',
        stage: 'consumption',
        deliveryDisposition: undefined,
      });
    } finally {
      await sidecar.stop();
    }
  });

  test('a request the dying sidecar never answered is gone', async () => {
    const sidecar = createFakeSidecar(() => 'hold');
    const pending = sidecar.request('close', { agentSessionId: 's' }).catch((caught: unknown) => caught);
    sidecar.die({ signal: 'SIGKILL' });
    assert.equal(classifySidecarFailure(await pending).kind, 'gone');
  });

  test('a queued turn that cannot start ends with the mapped error', () => {
    const failure = classifySidecarFailure(
      new SidecarUnavailableError('exited', 'the sidecar of generation 1 is gone'),
    );
    assert.deepEqual(turnErrorOf(failure), {
      message: 'could not start the turn: the sidecar of generation 1 is gone',
      code: 'sidecar_unavailable',
      apiErrorStatus: null,
    });
  });

  test('log names say why a request failed, never the message', () => {
    assert.equal(failureName(requestError('timeout')), 'SidecarRequestError:timeout');
    assert.equal(failureName(new SidecarUnavailableError('closed', 'secret')), 'SidecarUnavailableError');
    assert.equal(failureName('a string'), 'string');
  });
});

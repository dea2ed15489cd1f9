import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { requestTypes } from '../requestTypes.ts';
import { parseRequestPayload, requestPayloadSchemas } from './index.ts';
import { goalCommandOf } from './turn.ts';

function ok<T>(result: { ok: true; value: T } | { ok: false; error: string }): T {
  if (!result.ok) assert.fail(`expected the payload to parse, got: ${result.error}`);
  return result.value;
}

describe('parseRequestPayload', () => {
  test('there is one schema per request type', () => {
    assert.deepEqual(Object.keys(requestPayloadSchemas).sort(), [...requestTypes].sort());
  });

  test('a non-object payload is rejected with the envelope message', () => {
    assert.deepEqual(parseRequestPayload('close', []), {
      ok: false,
      error: 'sidecar request payload must be an object',
    });
  });

  test('start: strings trimmed, wrong types read as empty, env keeps only strings', () => {
    const start = ok(
      parseRequestPayload('start', {
        agentSessionId: ' s1 ',
        providerSessionId: 42,
        cwd: ' /repo ',
        env: { A: 'x', B: 1, C: null, D: '' },
        restore: 'true',
        settings: { model: ' opus ', planMode: true, reasoningEffort: 'high' },
        effort: 'low',
      }),
    );
    assert.equal(start.agentSessionId, 's1');
    assert.equal(start.providerSessionId, '');
    assert.equal(start.cwd, '/repo');
    assert.deepEqual(start.env, { A: 'x', D: '' });
    assert.equal(start.restore, false);
    assert.deepEqual(start.settings, {
      model: 'opus',
      permissionModeId: '',
      planMode: true,
      effort: 'high',
      speed: '',
    });
    assert.equal(start.effort, 'low');
    assert.equal(start.resumeCursor, undefined);
    assert.equal(start.allowedTools, undefined);
  });

  test('start: settings.effort wins over reasoningEffort; a non-object settings reads as defaults', () => {
    assert.equal(
      ok(parseRequestPayload('start', { agentSessionId: 's', settings: { effort: 'max', reasoningEffort: 'low' } }))
        .settings.effort,
      'max',
    );
    assert.deepEqual(ok(parseRequestPayload('start', { agentSessionId: 's', settings: 'fast' })).settings, {
      model: '',
      permissionModeId: '',
      planMode: false,
      effort: '',
      speed: '',
    });
  });

  test('start: an effort Claude Code cannot run is an error naming the field', () => {
    for (const effort of ['low', 'medium', 'high', 'xhigh', 'max', '', '  ']) {
      assert.equal(parseRequestPayload('start', { agentSessionId: 's', effort }).ok, true, `effort ${effort}`);
    }
    assert.deepEqual(parseRequestPayload('start', { agentSessionId: 's', effort: 'turbo' }), {
      ok: false,
      error: 'start effort must be one of low, medium, high, xhigh, max',
    });
    assert.deepEqual(parseRequestPayload('start', { agentSessionId: 's', settings: { reasoningEffort: 'High' } }), {
      ok: false,
      error: 'start settings.effort must be one of low, medium, high, xhigh, max',
    });
  });

  test('start: Claude options keep their well-formed parts', () => {
    const start = ok(
      parseRequestPayload('start', {
        agentSessionId: 's',
        restore: true,
        resumeCursor: { kind: 'claude-agent-sdk', version: 1, resume: ' p1 ', turnCount: 3 },
        allowedTools: ['Grep', 7, ' Glob '],
        disallowedTools: 'Monitor',
        plugins: [{ type: 'local', path: '/plug', skipMcpDiscovery: true }, { type: 'remote', path: '/x' }, 'p'],
        extraArgs: { model: 'm', verbose: null, depth: 3 },
        tools: { type: 'preset', preset: 'claude_code' },
      }),
    );
    assert.equal(start.restore, true);
    assert.deepEqual(start.resumeCursor, {
      kind: 'claude-agent-sdk',
      version: 1,
      resume: 'p1',
      resumeSessionAt: '',
      turnCount: 3,
    });
    assert.deepEqual(start.allowedTools, ['Grep', 'Glob']);
    assert.equal(start.disallowedTools, undefined);
    assert.deepEqual(start.plugins, [{ type: 'local', path: '/plug', skipMcpDiscovery: true }]);
    assert.deepEqual(start.extraArgs, { model: 'm', verbose: null });
    assert.deepEqual(start.tools, { type: 'preset', preset: 'claude_code' });
    assert.deepEqual(ok(parseRequestPayload('start', { agentSessionId: 's', tools: ['Read', 1] })).tools, undefined);
  });

  test('start requires agentSessionId', () => {
    assert.deepEqual(parseRequestPayload('start', { cwd: '/repo' }), {
      ok: false,
      error: 'start requires agentSessionId',
    });
    assert.deepEqual(parseRequestPayload('start', { agentSessionId: '  ' }), {
      ok: false,
      error: 'start requires agentSessionId',
    });
  });

  test('exec requires agentSessionId and turnId; content keeps only typed blocks', () => {
    assert.deepEqual(parseRequestPayload('exec', { turnId: 't' }), {
      ok: false,
      error: 'exec requires agentSessionId',
    });
    assert.deepEqual(parseRequestPayload('exec', { agentSessionId: 's', turnId: 5 }), {
      ok: false,
      error: 'exec requires turnId',
    });
    const exec = ok(
      parseRequestPayload('exec', {
        agentSessionId: 's',
        turnId: 't1',
        prompt: ' hello ',
        content: [{ type: 'text', text: 'hi' }, 'loose', { text: 'untyped' }, { type: 'image', source: { data: 'x' } }],
        goalRevision: '2',
      }),
    );
    assert.equal(exec.prompt, 'hello');
    assert.deepEqual(exec.content, [
      { type: 'text', text: 'hi' },
      { type: 'image', source: { data: 'x' } },
    ]);
    assert.equal(exec.goalRevision, 0);
    assert.equal(exec.goalAction, undefined);
    assert.deepEqual(ok(parseRequestPayload('exec', { agentSessionId: 's', turnId: 't', content: 'x' })).content, []);
  });

  test('goal fields count only together', () => {
    const exec = (fields: Record<string, unknown>) =>
      ok(parseRequestPayload('exec', { agentSessionId: 's', turnId: 't', ...fields }));
    const full = { goalOperationId: 'op', goalRevision: 2, goalRepairEpoch: 1, goalAction: 'clear' };
    assert.deepEqual(goalCommandOf(exec(full)), { operationId: 'op', revision: 2, repairEpoch: 1, action: 'clear' });
    assert.equal(goalCommandOf(exec({ ...full, goalRevision: 0 })), undefined);
    assert.equal(goalCommandOf(exec({ ...full, goalOperationId: ' ' })), undefined);
    assert.equal(goalCommandOf(exec({ ...full, goalAction: 'pause' })), undefined);
  });

  test('cancel: budgets are positive safe integers, turnId may be empty', () => {
    const cancel = ok(
      parseRequestPayload('cancel', { agentSessionId: 's', interruptTimeoutMs: 10_000, drainTimeoutMs: 8_000 }),
    );
    assert.deepEqual(cancel, { agentSessionId: 's', turnId: '', interruptTimeoutMs: 10_000, drainTimeoutMs: 8_000 });
    assert.deepEqual(
      parseRequestPayload('cancel', { agentSessionId: 's', interruptTimeoutMs: 1.5, drainTimeoutMs: 0 }),
      { ok: false, error: 'cancel interruptTimeoutMs must be a positive integer' },
    );
    assert.deepEqual(
      parseRequestPayload('cancel', { agentSessionId: 's', interruptTimeoutMs: 1, drainTimeoutMs: 2 ** 53 }),
      { ok: false, error: 'cancel drainTimeoutMs must be a positive integer' },
    );
  });

  test('guide: an optional interrupt budget, a positive integer when present', () => {
    assert.equal(ok(parseRequestPayload('guide', { agentSessionId: 's', prompt: 'x' })).interruptTimeoutMs, undefined);
    assert.equal(
      ok(parseRequestPayload('guide', { agentSessionId: 's', prompt: 'x', interruptTimeoutMs: 2500 }))
        .interruptTimeoutMs,
      2500,
    );
    for (const interruptTimeoutMs of [0, -1, 1.5, '1000']) {
      assert.deepEqual(parseRequestPayload('guide', { agentSessionId: 's', interruptTimeoutMs }), {
        ok: false,
        error: 'guide interruptTimeoutMs must be a positive integer',
      });
    }
  });

  test('stop_task falls back to the legacy parentToolUseId', () => {
    assert.equal(
      ok(parseRequestPayload('stop_task', { agentSessionId: 's', parentToolUseId: ' tool-1 ' })).toolCallId,
      'tool-1',
    );
    assert.equal(
      ok(parseRequestPayload('stop_task', { agentSessionId: 's', toolCallId: 'a', parentToolUseId: 'b' })).toolCallId,
      'a',
    );
  });

  test('interactive requests need the (turnId, requestId) identity; payload defaults to {}', () => {
    for (const type of ['submit_interactive', 'interactive_disposition'] as const) {
      assert.deepEqual(parseRequestPayload(type, { agentSessionId: 's', turnId: 't' }), {
        ok: false,
        error: `${type} requires requestId`,
      });
      assert.deepEqual(parseRequestPayload(type, { agentSessionId: 's', requestId: 'r' }), {
        ok: false,
        error: `${type} requires turnId`,
      });
      const submission = ok(
        parseRequestPayload(type, { agentSessionId: 's', turnId: 't', requestId: 'r', action: 'allow', payload: [1] }),
      );
      assert.deepEqual(submission, {
        agentSessionId: 's',
        turnId: 't',
        requestId: 'r',
        action: 'allow',
        optionId: '',
        payload: {},
      });
    }
  });

  test('apply_settings applies only present keys and rejects wrong types by name', () => {
    assert.deepEqual(ok(parseRequestPayload('apply_settings', { agentSessionId: 's', model: ' opus ' })), {
      agentSessionId: 's',
      model: 'opus',
    });
    assert.deepEqual(parseRequestPayload('apply_settings', { agentSessionId: 's', speed: 'turbo' }), {
      ok: false,
      error: 'apply_settings speed must be fast or standard',
    });
    assert.deepEqual(parseRequestPayload('apply_settings', { agentSessionId: 's', effort: 'extreme' }), {
      ok: false,
      error: 'apply_settings effort must be one of low, medium, high, xhigh, max',
    });
    assert.equal(ok(parseRequestPayload('apply_settings', { agentSessionId: 's', effort: ' xhigh ' })).effort, 'xhigh');
    assert.equal(ok(parseRequestPayload('apply_settings', { agentSessionId: 's', effort: '' })).effort, '');
    assert.deepEqual(parseRequestPayload('apply_settings', { agentSessionId: 's', planMode: 'yes' }), {
      ok: false,
      error: 'apply_settings planMode must be a boolean',
    });
  });

  test('close tolerates a missing session id', () => {
    assert.deepEqual(ok(parseRequestPayload('close', {})), { agentSessionId: '' });
    assert.deepEqual(ok(parseRequestPayload('close', undefined)), { agentSessionId: '' });
  });

  test('stateless reads: inspect and recover need the provider session; fork leaves checks to its stages', () => {
    for (const type of ['inspect_fork_checkpoints', 'recover_turn_binding'] as const) {
      assert.deepEqual(parseRequestPayload(type, { cwd: '/repo' }), {
        ok: false,
        error: 'provider session id is required',
      });
    }
    assert.deepEqual(ok(parseRequestPayload('fork_session', { title: ' Copy ' })), {
      providerSessionId: '',
      providerTurnId: '',
      providerCheckpointMessageId: '',
      cwd: '',
      title: 'Copy',
    });
  });
});

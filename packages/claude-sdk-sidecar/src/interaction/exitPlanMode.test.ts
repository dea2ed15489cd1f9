import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXIT_PLAN_MODE_REJECTED, exitPlanModeOptions, exitPlanModeResult } from './exitPlanMode.ts';

const choose = (action: string, optionId: string) => ({ action, optionId, payload: {} });

describe('exitPlanModeOptions', () => {
  it('offers bypass only when the session may bypass, and always ends with "keep planning"', () => {
    assert.deepEqual(
      exitPlanModeOptions(true).map((option) => option.optionId),
      ['bypassPermissions', 'auto', 'acceptEdits', 'default', 'plan'],
    );
    assert.deepEqual(
      exitPlanModeOptions(false).map((option) => [option.optionId, option.kind]),
      [
        ['auto', 'allow_always'],
        ['acceptEdits', 'allow_always'],
        ['default', 'allow_once'],
        ['plan', 'reject_once'],
      ],
    );
  });
});

describe('exitPlanModeResult', () => {
  it('maps a bare allow to the default mode and a refusal to keep planning', () => {
    assert.deepEqual(exitPlanModeResult(choose('allow', ''), {}, false), {
      behavior: 'allow',
      updatedInput: {},
      updatedPermissions: [{ type: 'setMode', mode: 'default', destination: 'session' }],
    });
    assert.deepEqual(exitPlanModeResult(choose('reject', 'auto'), {}, true), {
      behavior: 'deny',
      message: EXIT_PLAN_MODE_REJECTED,
    });
    assert.deepEqual(exitPlanModeResult(choose('allow', 'reject'), {}, true), {
      behavior: 'deny',
      message: EXIT_PLAN_MODE_REJECTED,
    });
    assert.deepEqual(exitPlanModeResult(choose('allow', 'plan'), {}, true), {
      behavior: 'deny',
      message: EXIT_PLAN_MODE_REJECTED,
    });
    assert.deepEqual(exitPlanModeResult(choose('select', 'dontAsk'), {}, true), {
      behavior: 'deny',
      message: EXIT_PLAN_MODE_REJECTED,
    });
  });
});

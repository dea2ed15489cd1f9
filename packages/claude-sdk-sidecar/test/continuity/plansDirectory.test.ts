import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import type { MockRule } from '@outrigger/mock-anthropic';
import type { InteractiveResult } from '@outrigger/protocol';
import {
  type ContinuityRig,
  eventsOfTurn,
  startContinuityRig,
  turnIdOf,
  waitForTerminal,
} from './continuityHarness.ts';

/*
 * Plan mode with TUTTI_CLAUDE_PLANS_DIRECTORY through the real sidecar process. Claude Code tells the
 * model where to write its plan; the scripted model writes it there, then calls ExitPlanMode, which the
 * host answers through submit_interactive. The plan file must be in the configured directory.
 * (Claude Code accepts a plans directory inside the project only; one outside falls back to
 * `$CLAUDE_CONFIG_DIR/plans`, so the configured directory lives under the session cwd.)
 */

const SESSION = 'continuity-plans';
const RELATIVE_SESSION = 'continuity-plans-relative';
const PLAN = '# Plan\n\n1. Read the code.\n2. Change the code.\n';
const PLAN_PATH_HINT = /create your plan at (\/[^\s"\\]+\.md)/;

/** The plan file path Claude Code announced in the first request of the turn. */
let announcedPlanPath: string | undefined;

const rules: MockRule[] = [
  (request) => {
    if (!request.lastUserText.includes('plan-it')) return undefined;
    const [result] = request.toolResults;
    if (!result) {
      announcedPlanPath = PLAN_PATH_HINT.exec(JSON.stringify(request.body))?.[1];
      if (!announcedPlanPath) return { content: [{ type: 'text', text: 'No plan file path was announced.' }] };
      return { content: [{ type: 'tool_use', name: 'Write', input: { file_path: announcedPlanPath, content: PLAN } }] };
    }
    if (result.toolName === 'Write') return { content: [{ type: 'tool_use', name: 'ExitPlanMode', input: {} }] };
    if (result.toolName === 'ExitPlanMode') {
      return { content: [{ type: 'text', text: result.isError ? 'Still planning.' : 'Plan approved.' }] };
    }
    return undefined;
  },
];

let rig: ContinuityRig;

before(async () => {
  rig = await startContinuityRig({ rules });
});

after(async () => {
  await rig?.dispose([SESSION, RELATIVE_SESSION]);
});

/**
 * Runs one plan turn on a started session, approves ExitPlanMode with "default" and checks that the
 * single plan file landed in `plansDirectory`.
 */
async function planTurnWritesInto(agentSessionId: string, turnId: string, plansDirectory: string): Promise<void> {
  const { sidecar, mock } = rig;
  const from = sidecar.events.length;
  announcedPlanPath = undefined;
  await sidecar.request('exec', { agentSessionId, turnId, prompt: 'plan-it: plan a small change' });

  const question = await sidecar.waitForEvent(
    (event) => event.type === 'user_input_requested' && event.payload.toolName === 'ExitPlanMode',
    { fromIndex: from, timeoutMs: 30_000, description: 'the ExitPlanMode user_input_requested' },
  );
  assert.ok(question.type === 'user_input_requested');
  assert.equal(turnIdOf(question), turnId, 'the question belongs to the plan turn');
  assert.ok(
    question.payload.options.some((option) => option.optionId === 'default'),
    `ExitPlanMode offers "default"; got ${question.payload.options.map((option) => option.optionId)}`,
  );
  assert.ok(announcedPlanPath, 'Claude Code announced a plan file path');
  assert.equal(dirname(announcedPlanPath), plansDirectory, 'the announced plan file is in the configured directory');

  const answer = await sidecar.request<InteractiveResult>('submit_interactive', {
    agentSessionId,
    turnId,
    requestId: question.payload.requestId,
    action: 'allow',
    optionId: 'default',
    payload: {},
  });
  assert.equal(answer.disposition, 'answered');

  const terminal = await waitForTerminal(sidecar, turnId, 'the plan turn');
  assert.equal(terminal.type, 'turn_completed', `the plan turn completed: ${JSON.stringify(terminal.payload)}`);
  const events = eventsOfTurn(sidecar.events.slice(from), turnId);
  const exit = events.find((event) => event.type === 'tool_completed' && event.payload.toolName === 'ExitPlanMode');
  assert.ok(exit, 'ExitPlanMode completed (approved), not failed');
  assert.ok(
    events.some((event) => event.type === 'assistant_completed' && event.payload.content === 'Plan approved.'),
    'the model saw the approval',
  );

  assert.ok(existsSync(plansDirectory), `${plansDirectory} exists`);
  const files = readdirSync(plansDirectory).filter((name) => name.endsWith('.md'));
  assert.equal(files.length, 1, `one plan file in the configured directory; got [${files}]`);
  assert.equal(readFileSync(join(plansDirectory, files[0] as string), 'utf8'), PLAN);
  assert.deepEqual(sidecar.protocolErrors, [], 'every event matches the protocol schemas');
  assert.deepEqual(mock.unmatched, [], 'mock-anthropic answered every model request');
}

test('in plan mode the plan is written to TUTTI_CLAUDE_PLANS_DIRECTORY and ExitPlanMode is answered', async () => {
  const plansDirectory = join(rig.home.cwd, 'team-plans');
  await rig.sidecar.request('start', {
    agentSessionId: SESSION,
    cwd: rig.home.cwd,
    env: { TUTTI_CLAUDE_PLANS_DIRECTORY: plansDirectory },
    settings: { permissionModeId: 'plan' },
  });
  await planTurnWritesInto(SESSION, 'turn-plan-it', plansDirectory);
});

test('a relative TUTTI_CLAUDE_PLANS_DIRECTORY is taken from the session cwd', async () => {
  await rig.sidecar.request('close', { agentSessionId: SESSION });
  await rig.sidecar.request('start', {
    agentSessionId: RELATIVE_SESSION,
    cwd: rig.home.cwd,
    env: { TUTTI_CLAUDE_PLANS_DIRECTORY: 'relative-plans' },
    permissionModeId: 'plan',
  });
  await planTurnWritesInto(RELATIVE_SESSION, 'turn-plan-it-relative', join(rig.home.cwd, 'relative-plans'));
});

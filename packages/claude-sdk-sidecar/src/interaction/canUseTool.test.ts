import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CanUseTool, PermissionUpdate } from '@anthropic-ai/claude-agent-sdk';
import { contractQuestionId } from './askUserQuestion.ts';
import { type CanUseToolDeps, createCanUseTool, IDENTITY_UNCONFIRMED } from './canUseTool.ts';
import { InteractiveRegistry } from './interactiveRegistry.ts';
import { SessionPermissionLedger } from './sessionPermissionLedger.ts';
import { within } from './testSupport.ts';

type SdkOptions = Parameters<CanUseTool>[2];
interface Emitted {
  readonly type: string;
  readonly payload: Record<string, unknown>;
}

const bashRule = (command: string, destination: PermissionUpdate['destination']): PermissionUpdate => ({
  type: 'addRules',
  rules: [{ toolName: 'Bash', ruleContent: command }],
  behavior: 'allow',
  destination,
});
const bashSuggestions: PermissionUpdate[] = [
  bashRule('touch a.txt', 'localSettings'),
  { type: 'setMode', mode: 'acceptEdits', destination: 'session' },
];
const bashGrant: PermissionUpdate[] = [bashRule('touch a.txt', 'session')];

/** A session's worth of collaborators; each `generation()` is the callback of one Query generation. */
function session(overrides: Partial<CanUseToolDeps> = {}) {
  const events: Emitted[] = [];
  const waiters: { type: string; resolve(event: Emitted): void }[] = [];
  const phases: string[] = [];
  const registry = new InteractiveRegistry();
  const ledger = new SessionPermissionLedger();
  const deps: CanUseToolDeps = {
    registry,
    ledger,
    emit: ((type: string, payload: Record<string, unknown>) => {
      const event = { type, payload };
      events.push(event);
      for (const waiter of waiters.filter((candidate) => candidate.type === type)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    }) as CanUseToolDeps['emit'],
    resolveTurnId: () => 'turn-1',
    awaitTurnIdentity: async (_turnId, phase) => {
      phases.push(phase);
    },
    getPermissionMode: () => 'default',
    canBypassPermissions: true,
    isGenerationActive: () => true,
    ...overrides,
  };
  const nextEvent = (type: string, ms = 2000): Promise<Emitted> => {
    const seen = events.find((event) => event.type === type && !consumed.has(event));
    if (seen) {
      consumed.add(seen);
      return Promise.resolve(seen);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${type}`)), ms);
      waiters.push({
        type,
        resolve: (event) => {
          clearTimeout(timer);
          consumed.add(event);
          resolve(event);
        },
      });
    });
  };
  const consumed = new Set<Emitted>();
  // Every callback result is bounded, so a request that never settles fails the test instead of hanging it.
  const generation = (): CanUseTool => {
    const canUseTool = createCanUseTool(deps);
    return (toolName, input, options) => within(canUseTool(toolName, input, options), `canUseTool(${toolName})`);
  };
  return { events, phases, registry, ledger, deps, nextEvent, generation };
}

function sdkOptions(overrides: Partial<SdkOptions> = {}): SdkOptions {
  return { signal: new AbortController().signal, toolUseID: 'toolu_1', requestId: 'sdk-1', ...overrides };
}

async function answer(
  s: ReturnType<typeof session>,
  type: 'approval_requested' | 'user_input_requested',
  action: string,
  optionId: string,
  payload: Record<string, unknown> = {},
) {
  const { payload: request } = await s.nextEvent(type);
  const outcome = s.registry.submit(request.turnId as string, request.requestId as string, action, optionId, payload);
  assert.deepEqual(outcome, { disposition: 'answered', replayed: false });
  return request;
}

describe('createCanUseTool: approvals', () => {
  it('publishes approval_requested after identity, allows once and reports approval_resolved', async () => {
    const s = session();
    const input = { command: 'touch a.txt' };
    const result = s.generation()(
      'Bash',
      input,
      sdkOptions({ suggestions: bashSuggestions, title: 'Claude wants to run touch a.txt' }),
    );
    const request = await answer(s, 'approval_requested', 'allow', 'allow');
    assert.deepEqual(await result, { behavior: 'allow', updatedInput: input });
    assert.deepEqual(s.phases, ['waiting_approval']);
    assert.deepEqual(request, {
      turnId: 'turn-1',
      requestId: request.requestId,
      toolCallId: 'toolu_1',
      toolName: 'Bash',
      input,
      options: [
        {
          kind: 'allow_always',
          name: 'Allow for session',
          optionId: 'allow_always',
          // What the session grant covers: the rule Claude Code suggested (here the exact command).
          sessionGrant: { rules: ['Bash(touch a.txt)'], directories: [] },
        },
        { kind: 'allow_once', name: 'Allow', optionId: 'allow' },
        { kind: 'reject_once', name: 'Reject', optionId: 'reject' },
      ],
      toolCall: {
        toolCallId: 'toolu_1',
        name: 'Bash',
        title: 'Claude wants to run touch a.txt',
        toolName: 'Bash',
        input,
      },
    });
    assert.match(request.requestId as string, /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      s.events.map((event) => event.type),
      ['approval_requested', 'approval_resolved'],
    );
    assert.deepEqual(s.events[1].payload, {
      turnId: 'turn-1',
      requestId: request.requestId,
      action: 'allow',
      optionId: 'allow',
      payload: {},
    });
    assert.equal(s.ledger.size, 0, 'allow once is not remembered');
  });

  it('grants "Allow for session" in session scope and replays it in a new generation without a prompt', async () => {
    const s = session();
    const input = { command: 'touch a.txt' };
    const first = s.generation()('Bash', input, sdkOptions({ suggestions: bashSuggestions }));
    await answer(s, 'approval_requested', 'allow', 'allow_always');
    assert.deepEqual(await first, { behavior: 'allow', updatedInput: input, updatedPermissions: bashGrant });

    const second = await s.generation()(
      'Bash',
      input,
      sdkOptions({ toolUseID: 'toolu_2', suggestions: structuredClone(bashSuggestions) }),
    );
    assert.deepEqual(second, { behavior: 'allow', updatedInput: input, updatedPermissions: bashGrant });
    assert.equal(s.events.filter((event) => event.type === 'approval_requested').length, 1);

    const other = s.generation()(
      'Bash',
      { command: 'touch b.txt' },
      sdkOptions({
        toolUseID: 'toolu_3',
        suggestions: [bashRule('touch b.txt', 'localSettings')],
      }),
    );
    await answer(s, 'approval_requested', 'reject', 'reject');
    assert.equal((await other)?.behavior, 'deny', 'a different command still asks');
  });

  it('remembers an "Allow for session" request Claude Code offers no rule for, in this and later generations', async () => {
    const s = session();
    const input = { command: 'mkdir -p hard-demo && echo hi > hard-demo/a.txt && cat hard-demo/a.txt' };
    const first = s.generation()('Bash', input, sdkOptions({ toolUseID: 'toolu_1' }));
    await answer(s, 'approval_requested', 'allow', 'allow_always');
    assert.deepEqual(await first, { behavior: 'allow', updatedInput: input });

    const again = await s.generation()('Bash', { ...input }, sdkOptions({ toolUseID: 'toolu_2' }));
    assert.deepEqual(again, { behavior: 'allow', updatedInput: input }, 'the identical request is allowed');
    const later = await s.generation()('Bash', structuredClone(input), sdkOptions({ toolUseID: 'toolu_3' }));
    assert.equal(later?.behavior, 'allow', 'also by the callback of a later generation');
    assert.equal(s.events.filter((event) => event.type === 'approval_requested').length, 1);

    const changed = s.generation()('Bash', { command: `${input.command} && rm -rf hard-demo` }, sdkOptions());
    await answer(s, 'approval_requested', 'reject', 'reject');
    assert.equal((await changed)?.behavior, 'deny', 'a different input still asks');
    const allowedOnce = s.generation()('Write', { file_path: 'a.txt', content: 'x' }, sdkOptions());
    await answer(s, 'approval_requested', 'allow', 'allow');
    assert.equal((await allowedOnce)?.behavior, 'allow');
    const askedAgain = s.generation()('Write', { file_path: 'a.txt', content: 'x' }, sdkOptions());
    await answer(s, 'approval_requested', 'reject', 'reject');
    assert.equal((await askedAgain)?.behavior, 'deny', '"Allow" (once) is never remembered');
  });

  it('leaves out "Allow for session" when Claude Code suppresses standing grants, and never remembers then', async () => {
    const s = session();
    const result = s.generation()(
      'Bash',
      {},
      sdkOptions({ suggestions: bashSuggestions, suppressAlwaysAllowRule: true }),
    );
    const request = await answer(s, 'approval_requested', 'allow', 'allow_always');
    assert.deepEqual(
      (request.options as { optionId: string }[]).map((option) => option.optionId),
      ['allow', 'reject'],
    );
    assert.deepEqual(await result, { behavior: 'allow', updatedInput: {} });
    assert.equal(s.ledger.size, 0);
  });

  it('denies with the host message, or the default one', async () => {
    const s = session();
    const canUseTool = s.generation();
    const withMessage = canUseTool('Write', {}, sdkOptions());
    await answer(s, 'approval_requested', 'reject', 'reject', { denyMessage: 'Not in this repo' });
    assert.deepEqual(await withMessage, { behavior: 'deny', message: 'Not in this repo' });
    const withoutMessage = canUseTool('Write', {}, sdkOptions({ toolUseID: 'toolu_2' }));
    await answer(s, 'approval_requested', 'select', 'something-else');
    assert.deepEqual(await withoutMessage, { behavior: 'deny', message: 'User refused permission to run tool' });
  });

  it('allows without asking under an effective bypassPermissions mode only', async () => {
    const bypassing = session({ getPermissionMode: () => 'bypassPermissions' });
    assert.deepEqual(await bypassing.generation()('Bash', { command: 'x' }, sdkOptions()), {
      behavior: 'allow',
      updatedInput: { command: 'x' },
    });
    assert.equal(bypassing.events.length, 0);

    const gated = session({ getPermissionMode: () => 'bypassPermissions', canBypassPermissions: false });
    const result = gated.generation()('Bash', {}, sdkOptions());
    await answer(gated, 'approval_requested', 'allow', 'allow');
    assert.equal((await result)?.behavior, 'allow');
  });
});

describe('createCanUseTool: fencing', () => {
  it('denies on a revoked generation without publishing anything', async () => {
    const s = session({ isGenerationActive: () => false });
    assert.deepEqual(await s.generation()('Bash', {}, sdkOptions()), { behavior: 'deny', message: 'Tool use aborted' });
    assert.deepEqual(s.events, []);
    assert.deepEqual(s.phases, []);
  });

  it('publishes nothing when the SDK aborts before the identity barrier resolves', async () => {
    let barrierEntered: () => void = () => {};
    const entered = new Promise<void>((resolve) => {
      barrierEntered = resolve;
    });
    const s = session({
      awaitTurnIdentity: (_turnId, _phase, signal) =>
        new Promise<void>((_resolve, reject) => {
          barrierEntered();
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
        }),
    });
    const controller = new AbortController();
    const result = s.generation()('Bash', {}, sdkOptions({ signal: controller.signal }));
    await within(entered, 'the identity barrier');
    controller.abort();
    assert.deepEqual(await result, { behavior: 'deny', message: 'Tool use aborted' });
    assert.deepEqual(s.events, []);
    assert.equal(s.registry.pendingCount, 0);
  });

  it('publishes nothing when the generation is revoked while identity is resolved', async () => {
    let active = true;
    const s = session({
      isGenerationActive: () => active,
      awaitTurnIdentity: async () => {
        active = false;
      },
    });
    assert.deepEqual(await s.generation()('Bash', {}, sdkOptions()), { behavior: 'deny', message: 'Tool use aborted' });
    assert.deepEqual(s.events, []);
  });

  it('denies with a fixed message when the identity cannot be confirmed', async () => {
    const s = session({
      awaitTurnIdentity: async () => {
        throw new Error('transcript ambiguous');
      },
    });
    assert.deepEqual(await s.generation()('Bash', {}, sdkOptions()), {
      behavior: 'deny',
      message: IDENTITY_UNCONFIRMED,
    });
    assert.deepEqual(s.events, []);
  });

  it('ends a pending request as superseded on rejectAll, or on an SDK abort, without approval_resolved', async () => {
    const s = session();
    const controller = new AbortController();
    const canUseTool = s.generation();
    const cancelled = canUseTool('Bash', {}, sdkOptions());
    const aborted = canUseTool('Write', {}, sdkOptions({ toolUseID: 'toolu_2', signal: controller.signal }));
    const first = await s.nextEvent('approval_requested');
    const second = await s.nextEvent('approval_requested');
    controller.abort();
    assert.deepEqual(await aborted, { behavior: 'deny', message: 'Tool use aborted' });
    s.registry.rejectAll('Tool use aborted');
    assert.deepEqual(await cancelled, { behavior: 'deny', message: 'Tool use aborted' });
    for (const request of [first, second]) {
      assert.deepEqual(
        s.registry.submit(request.payload.turnId as string, request.payload.requestId as string, 'allow', 'allow', {}),
        { disposition: 'superseded', replayed: true },
      );
    }
    assert.equal(s.events.filter((event) => event.type === 'approval_resolved').length, 0);
  });

  it('passes the sub-agent id to the turn resolver and into the request', async () => {
    const seen: unknown[] = [];
    const s = session({
      resolveTurnId: (toolUseId, agentId) => {
        seen.push([toolUseId, agentId]);
        return 'child-turn';
      },
    });
    const result = s.generation()('Bash', {}, sdkOptions({ agentID: 'agent-7' }));
    const request = await answer(s, 'approval_requested', 'allow', 'allow');
    await result;
    assert.deepEqual(seen, [['toolu_1', 'agent-7']]);
    assert.equal(request.agentId, 'agent-7');
    assert.equal(request.turnId, 'child-turn');
  });
});

describe('createCanUseTool: AskUserQuestion', () => {
  const questions = [
    {
      question: 'Which database?',
      header: 'DB',
      options: [
        { label: 'SQLite', description: 'small' },
        { label: 'Postgres', description: 'big' },
      ],
      multiSelect: false,
    },
    {
      question: 'Which features?',
      header: 'Features',
      options: [
        { label: 'Auth', description: '' },
        { label: 'Search', description: '' },
      ],
      multiSelect: true,
    },
  ];

  it('asks with stable question ids, even under bypass, and answers by id with multi-select joined', async () => {
    const s = session({ getPermissionMode: () => 'bypassPermissions' });
    const input = { questions };
    const result = s.generation()('AskUserQuestion', input, sdkOptions());
    const { payload: request } = await s.nextEvent('user_input_requested');
    const published = (request.input as { questions: { id: string; question: string }[] }).questions;
    const ids = published.map((question) => question.id);
    assert.deepEqual(ids, questions.map(contractQuestionId), 'ids a host computes from the questions it was shown');
    assert.notEqual(ids[0], ids[1]);
    assert.deepEqual(request.options, []);
    assert.deepEqual(s.phases, ['waiting_input']);

    s.registry.submit('turn-1', request.requestId as string, 'submit', '', {
      answersByQuestionId: { [ids[0]]: 'SQLite', [ids[1]]: ['Auth', 'Search'] },
      annotations: { [ids[0]]: { notes: 'small app', secret: 'dropped' } },
    });
    assert.deepEqual(await result, {
      behavior: 'allow',
      updatedInput: {
        questions,
        answers: { 'Which database?': 'SQLite', 'Which features?': 'Auth, Search' },
        annotations: { 'Which database?': { notes: 'small app' } },
      },
    });
    assert.deepEqual(
      s.events.map((event) => event.type),
      ['user_input_requested', 'user_input_resolved'],
    );

    // The same input asked again gets the same ids.
    const again = s.generation()('AskUserQuestion', { questions }, sdkOptions({ toolUseID: 'toolu_2' }));
    const { payload: repeated } = await s.nextEvent('user_input_requested');
    assert.deepEqual(
      (repeated.input as { questions: { id: string }[] }).questions.map((question) => question.id),
      ids,
    );
    s.registry.submit('turn-1', repeated.requestId as string, 'submit', '', {
      answers: { 'Which database?': 'Postgres' },
    });
    assert.deepEqual(await again, {
      behavior: 'allow',
      updatedInput: { questions, answers: { 'Which database?': 'Postgres' } },
    });
  });

  it('keeps ids the model already gave and declines on a refusal', async () => {
    const s = session();
    const result = s.generation()('AskUserQuestion', { questions: [{ ...questions[0], id: 'q-db' }] }, sdkOptions());
    const request = await answer(s, 'user_input_requested', 'reject', '');
    assert.equal((request.input as { questions: { id: string }[] }).questions[0].id, 'q-db');
    assert.deepEqual(await result, { behavior: 'deny', message: 'User declined to answer the question' });

    const contradictory = s.generation()('AskUserQuestion', { questions }, sdkOptions({ toolUseID: 'toolu_2' }));
    await answer(s, 'user_input_requested', 'allow', 'reject', { answers: { 'Which database?': 'SQLite' } });
    assert.deepEqual(await contradictory, { behavior: 'deny', message: 'User declined to answer the question' });
  });
});

describe('createCanUseTool: ExitPlanMode', () => {
  it('offers the exit modes and applies the chosen one to the session', async () => {
    const s = session({ canBypassPermissions: false });
    const input = { plan: '1. Inspect' };
    const result = s.generation()('ExitPlanMode', input, sdkOptions());
    const request = await answer(s, 'user_input_requested', 'allow', 'acceptEdits');
    assert.deepEqual(
      (request.options as { optionId: string }[]).map((option) => option.optionId),
      ['auto', 'acceptEdits', 'default', 'plan'],
    );
    assert.deepEqual(await result, {
      behavior: 'allow',
      updatedInput: input,
      updatedPermissions: [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }],
    });
  });

  it('keeps planning on "plan" and refuses a bypass the session may not use', async () => {
    for (const optionId of ['plan', 'bypassPermissions']) {
      const s = session({ canBypassPermissions: false });
      const result = s.generation()('ExitPlanMode', {}, sdkOptions());
      await answer(s, 'user_input_requested', 'allow', optionId);
      assert.deepEqual(await result, { behavior: 'deny', message: 'User rejected request to exit plan mode.' });
    }
    const s = session({ canBypassPermissions: true });
    const result = s.generation()('ExitPlanMode', {}, sdkOptions());
    const request = await answer(s, 'user_input_requested', 'allow', 'bypassPermissions');
    assert.equal((request.options as { optionId: string }[])[0].optionId, 'bypassPermissions');
    assert.deepEqual(await result, {
      behavior: 'allow',
      updatedInput: {},
      updatedPermissions: [{ type: 'setMode', mode: 'bypassPermissions', destination: 'session' }],
    });
  });
});

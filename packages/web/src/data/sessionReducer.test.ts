import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SessionEvent, SessionSnapshot } from '@outrigger/host-api';
import { resultOf, type SessionAction, sessionReducer, toolOf } from './sessionReducer.ts';
import { emptySessionState, type SessionViewState } from './sessionState.ts';
import { ev, interaction, result, row, snapshot, T0, task, tool, turn, userRow } from './testing/fixtures.ts';
import { recordedTurn } from './testing/recordedTurn.ts';
import { snapshotOf } from './testing/snapshotOf.ts';

function fold(events: readonly SessionEvent[], from: SessionSnapshot = snapshot()): SessionViewState {
  let state = sessionReducer(emptySessionState('s1'), { type: 'snapshot', snapshot: from });
  // Arrival time follows the seq, so a duplicate arrives 'at the same time' as its original.
  for (const event of events) state = apply(state, event, T0 + event.data.seq * 10);
  return state;
}

function apply(state: SessionViewState, event: SessionEvent, receivedAt = T0): SessionViewState {
  return sessionReducer(state, { type: 'event', event, receivedAt });
}

function texts(state: SessionViewState): string[] {
  return state.order.map((id) => {
    const block = state.rows[id]!.content[0]!;
    if (block.type === 'text') return block.text;
    if (block.type === 'thinking') return `(${block.thinking})`;
    if (block.type === 'tool_use') return `[${block.name} ${block.status}: ${resultOf(state.rows[id]!)?.content}]`;
    return block.type;
  });
}

describe('a recorded turn', () => {
  const events = recordedTurn();
  const state = fold(events);

  test('folds into one row per prompt, thinking, text and tool call, in order', () => {
    assert.deepEqual(texts(state), [
      'run the tests',
      '(Let me run them.)',
      'Running the tests.',
      '[Bash completed: PASS 2/2]',
      'All tests pass.',
    ]);
    assert.equal(state.lastSeq, events.length);
  });

  test('ends idle, not busy, with the turn completed and its usage', () => {
    assert.equal(state.session?.status, 'idle');
    assert.equal(state.session?.runningTurnId, null);
    assert.equal(state.turns.t1?.status, 'completed');
    assert.equal(state.turns.t1?.durationMs, 4200);
    assert.equal(state.turns.t1?.usage?.outputTokens, 80);
    assert.equal(state.interactions.r1?.status, 'answered');
  });

  test('every event applied twice gives the same state (duplicates are ignored)', () => {
    const doubled = events.flatMap((event) => [event, event]);
    assert.deepEqual(fold(doubled), state);
  });

  test('mid-stream, replaying any event already applied (the last one included) changes nothing', () => {
    // Checked after every prefix, not only at the end: there the final `text` replaces the deltas and a
    // status is set again by the next one, which hides a replay that was applied.
    for (let applied = 1; applied <= events.length; applied++) {
      const now = fold(events.slice(0, applied));
      for (const replayed of events.slice(0, applied)) {
        const after = apply(now, replayed, T0 + replayed.data.seq * 10);
        assert.deepEqual(after, now, `seq ${replayed.data.seq} (${replayed.type}) replayed after seq ${applied}`);
      }
    }
  });

  test('a reload mid-stream (snapshot, then a replay that overlaps it) gives the same state', () => {
    for (const cut of [3, 6, 9, 14, 15, events.length - 1]) {
      const before = fold(events.slice(0, cut));
      const reloaded = fold(events.slice(cut - 3), snapshotOf(before));
      assert.deepEqual(texts(reloaded), texts(state), `reload after seq ${cut}`);
      assert.equal(reloaded.order.length, new Set(reloaded.order).size);
      assert.equal(reloaded.session?.runningTurnId, null);
      assert.equal(reloaded.turns.t1?.status, 'completed');
    }
  });

  test('an older snapshot never takes the view back in time', () => {
    const older = snapshotOf(fold(events.slice(0, 5)));
    const after = sessionReducer(state, { type: 'snapshot', snapshot: older });
    assert.equal(after, state);
  });
});

describe('the seq watermark', () => {
  const started = ev('turn_started', 1, { turnId: 't1', kind: 'user', message: null });
  const delta = (seq: number, text: string) =>
    ev('text', seq, { turnId: 't1', messageId: 'm', delta: text, final: false, interrupted: false });
  const streamed = (state: SessionViewState) => {
    const block = state.rows.m?.content[0];
    return block?.type === 'text' ? block.text : undefined;
  };

  test('a text delta delivered again, at the watermark or below it, does not grow the text mid-stream', () => {
    const state = fold([started, delta(2, 'Run'), delta(3, 'ning')]);
    assert.equal(streamed(state), 'Running');
    assert.equal(streamed(apply(state, delta(3, 'ning'))), 'Running', 'the event at the watermark');
    assert.equal(streamed(apply(state, delta(2, 'Run'))), 'Running', 'an older event');
  });

  test('a tool result delivered again neither replaces the newer one nor touches the row', () => {
    const use = ev('tool_use', 2, { turnId: 't1', messageId: 'm', tool: tool({ id: 'tu' }) });
    const hook = (seq: number, text: string) =>
      ev('tool_result', seq, {
        turnId: 't1',
        messageId: 'm',
        tool_use_id: 'tu',
        status: 'completed',
        result: result('tu', 'hook', text),
      });
    const state = fold([started, use, hook(3, 'first'), hook(4, 'second')]);
    // Equal rank: the later result wins, so an older one applied again would take its place.
    assert.equal(resultOf(apply(state, hook(3, 'first')).rows.m!)?.content, 'second');
    // The one at the watermark, arriving later, would restamp the row it already made.
    assert.equal(apply(state, hook(4, 'second'), T0 + 99_000).rows.m?.updatedAt, state.rows.m?.updatedAt);
  });

  test('a status or an error delivered again neither takes the session back nor adds a second notice', () => {
    const status = (seq: number, value: 'running' | 'needs_input') =>
      ev('status', seq, {
        status: value,
        closed: false,
        needsInputCount: 0,
        runningTurnId: 't1',
        queuePaused: false,
        lastError: null,
      });
    const error = ev('error', 3, { turnId: 't1', code: 'sidecar_unavailable', message: 'The sidecar stopped' });
    const state = fold([status(1, 'running'), status(2, 'needs_input'), error]);
    assert.equal(apply(state, status(1, 'running')).session?.status, 'needs_input');
    assert.equal(apply(state, error).notices.length, 1, 'the event at the watermark');
    assert.equal(apply(state, error).lastSeq, 3);
  });
});

describe('tool results by rank', () => {
  const base = [ev('tool_use', 1, { turnId: 't1', messageId: 'm', tool: tool({ id: 'tu' }) })];
  const res = (seq: number, source: 'hook' | 'canonical' | 'synthesized', text: string) =>
    ev('tool_result', seq, {
      turnId: 't1',
      messageId: 'm',
      tool_use_id: 'tu',
      status: source === 'synthesized' ? 'failed' : 'completed',
      result: result('tu', source, text, { is_error: source === 'synthesized' }),
    });
  const shown = (state: SessionViewState) => resultOf(state.rows.m!)?.content;

  test('canonical beats hook whatever the order', () => {
    assert.equal(shown(fold([...base, res(2, 'hook', 'h'), res(3, 'canonical', 'c')])), 'c');
    assert.equal(shown(fold([...base, res(2, 'canonical', 'c'), res(3, 'hook', 'h')])), 'c');
  });

  test('equal rank: the last wins; anything real beats synthesized', () => {
    assert.equal(shown(fold([...base, res(2, 'hook', 'h1'), res(3, 'hook', 'h2')])), 'h2');
    const replaced = fold([...base, res(2, 'synthesized', 'aborted'), res(3, 'hook', 'real')]);
    assert.equal(shown(replaced), 'real');
    assert.equal(toolOf(replaced.rows.m)?.status, 'completed');
    assert.equal(shown(fold([...base, res(2, 'canonical', 'c'), res(3, 'synthesized', 's')])), 'c');
  });

  test('a result before its call: the late tool_use keeps the result and its status', () => {
    const state = fold([
      res(1, 'canonical', 'c'),
      ev('tool_use', 2, { turnId: 't1', messageId: 'm', tool: tool({ id: 'tu', name: 'Read' }) }),
    ]);
    assert.equal(state.order.length, 1);
    assert.equal(toolOf(state.rows.m)?.name, 'Read');
    assert.equal(toolOf(state.rows.m)?.status, 'completed');
    assert.equal(shown(state), 'c');
  });

  test('live output shows while running and never overwrites a finished call', () => {
    const out = (seq: number, output: string) =>
      ev('tool_output', seq, { turnId: 't1', messageId: 'm', tool_use_id: 'tu', output });
    assert.equal(toolOf(fold([...base, out(2, 'line 1')]).rows.m)?.output, 'line 1');
    assert.equal(toolOf(fold([...base, res(2, 'canonical', 'c'), out(3, 'late')]).rows.m)?.output, null);
  });
});

describe('turn end', () => {
  const running = [
    ev('turn_started', 1, { turnId: 't1', kind: 'user', message: userRow('u', 'hi', { turnId: 't1', role: 'user' }) }),
    ev('text', 2, { turnId: 't1', messageId: 'm', delta: 'half an ans', final: false, interrupted: false }),
  ];

  test('one done clears busy and marks what was still streaming as interrupted when canceled', () => {
    const state = fold([
      ...running,
      ev('turn_canceled', 3, { turnId: 't1', disposition: 'provider_active', reason: 'user' }),
      ev('done', 4, { turnId: 't1', outcome: 'canceled', error: null }),
    ]);
    assert.equal(state.session?.runningTurnId, null);
    assert.equal(state.turns.t1?.status, 'canceled');
    assert.equal(state.turns.t1?.cancelDisposition, 'provider_active');
    assert.equal(state.rows.m?.status, 'interrupted');
  });

  test('text arriving after done does not grow a finished row', () => {
    const state = fold([
      ...running,
      ev('done', 3, { turnId: 't1', outcome: 'completed', error: null }),
      ev('text', 4, { turnId: 't1', messageId: 'm', delta: 'late', final: false, interrupted: false }),
    ]);
    assert.equal(state.rows.m?.status, 'complete');
    assert.deepEqual(state.rows.m?.content, [{ type: 'text', text: 'half an ans' }]);
  });

  test('a failed turn keeps its error; a done for another turn leaves the running one busy', () => {
    const error = { message: 'The API rejected the key', code: 'authentication_failed', apiErrorStatus: 401 };
    const failed = fold([...running, ev('done', 3, { turnId: 't1', outcome: 'failed', error })]);
    assert.deepEqual(failed.turns.t1?.error, error);
    const other = fold([...running, ev('done', 3, { turnId: 't0', outcome: 'completed', error: null })]);
    assert.equal(other.session?.runningTurnId, 't1');
  });

  test('an interrupted final marks the row, and a stall clears with the next output', () => {
    const state = fold([
      ...running,
      ev('turn_stalled', 3, { turnId: 't1', silentMs: 30_000 }),
      ev('text', 4, { turnId: 't1', messageId: 'm', delta: '', final: true, text: 'half', interrupted: true }),
    ]);
    assert.equal(state.rows.m?.status, 'interrupted');
    assert.deepEqual(state.stalls, {});
    assert.equal(fold([...running, ev('turn_stalled', 3, { turnId: 't1', silentMs: 30_000 })]).stalls.t1, 30_000);
  });
});

describe('session-level events', () => {
  test('status, settings, mode, usage and title update the session', () => {
    const usage = {
      contextWindow: { usedTokens: 50_000, totalTokens: 200_000, compactsAutomatically: true },
      inputTokens: 10,
      outputTokens: 20,
      totalCostUsd: 0.5,
    };
    const state = fold([
      ev('status', 1, {
        status: 'failed',
        closed: true,
        needsInputCount: 0,
        runningTurnId: null,
        queuePaused: false,
        lastError: null,
      }),
      ev('settings', 2, {
        settings: { model: 'opus', permissionMode: 'acceptEdits', planMode: false, effort: 'high' },
        effectiveModel: 'claude-opus-4',
      }),
      ev('mode_changed', 3, { permissionMode: 'plan', planMode: true }),
      ev('usage', 4, { turnId: null, usage }),
      ev('title', 5, { title: 'Fix the build' }),
    ]);
    assert.equal(state.session?.status, 'failed');
    assert.equal(state.session?.closed, true);
    assert.equal(state.session?.effectiveModel, 'claude-opus-4');
    assert.equal(state.session?.settings.effort, 'high');
    assert.equal(state.session?.permissionMode, 'plan');
    assert.equal(state.session?.settings.planMode, true);
    assert.deepEqual(state.session?.usage, usage);
    assert.equal(state.session?.title, 'Fix the build');
  });

  test('a settings event with Claude Code’s choices fills the model list; one without keeps it', () => {
    const configOptions = [
      {
        id: 'model',
        name: 'Model',
        type: 'select',
        currentValue: 'default',
        effectiveValue: 'claude-opus-5-5',
        options: [{ value: 'default', name: 'Default (recommended)' }],
      },
    ];
    const settings = { model: 'default', permissionMode: 'default' as const, planMode: false, effort: null };
    const state = fold([
      ev('settings', 1, { settings, effectiveModel: 'claude-opus-5-5', configOptions }),
      ev('settings', 2, { settings: { ...settings, planMode: true }, effectiveModel: 'claude-opus-5-5' }),
    ]);
    assert.deepEqual(state.session?.configOptions, configOptions);
    assert.equal(state.session?.settings.planMode, true);
  });

  test('queue, background tasks, notices, steer and compaction rows', () => {
    const queued = { turnId: 't2', prompt: 'next', clientMessageId: 'c2', imageCount: 0, createdAt: T0, paused: false };
    const bg = {
      tool_use_id: 'tu9',
      turnId: 't1',
      kind: 'command' as const,
      taskId: 'b1',
      description: 'tick',
      status: 'running',
      startedAt: T0,
    };
    const state = fold([
      ev('queue', 1, { queuedPrompts: [queued] }),
      ev('background_tasks', 2, { turnId: 't1', tasks: [bg] }),
      ev('error', 3, { turnId: null, code: 'sidecar_unavailable', message: 'The sidecar did not start' }),
      ev('user_message', 4, { turnId: 't1', message: userRow('steer', 'also lint', { steer: true }) }),
      ev('notice', 5, {
        turnId: 't1',
        message: row({
          id: 'n',
          role: 'system',
          noticeKind: 'compaction',
          content: [{ type: 'text', text: 'Compacted' }],
        }),
      }),
      ev('queue', 6, { queuedPrompts: [] }),
    ]);
    assert.deepEqual(state.queuedPrompts, []);
    assert.deepEqual(state.backgroundTasks, [bg]);
    assert.equal(state.notices[0]?.code, 'sidecar_unavailable');
    assert.deepEqual(state.order, ['steer', 'n']);
    const dismissed = sessionReducer(state, { type: 'noticeDismissed', seq: 3 });
    assert.deepEqual(dismissed.notices, []);
  });

  test('tool timeouts and agent tasks land on their call', () => {
    const agent = {
      taskId: 'a1',
      agentId: 'ag',
      status: 'running',
      description: 'Explore',
      summary: null,
      lastToolName: 'Grep',
      usage: null,
      updatedAt: T0,
    };
    const state = fold([
      ev('tool_use', 1, {
        turnId: 't1',
        messageId: 'm',
        tool: tool({ id: 'tu', name: 'Agent', callType: 'subagent' }),
      }),
      ev('agent_task', 2, { turnId: 't1', messageId: 'm', tool_use_id: 'tu', task: agent }),
      ev('tool_timeout', 3, { turnId: 't1', tool_use_id: 'tu', toolName: 'Agent', elapsedSeconds: 600 }),
    ]);
    assert.deepEqual(toolOf(state.rows.m)?.agentTask, agent);
    assert.equal(state.toolTimeouts.tu, 600);
  });

  test('events of another session are ignored', () => {
    const state = fold([ev('title', 1, { title: 'x', session_id: 's2' })]);
    assert.equal(state.session?.title, 'New session');
    assert.equal(state.lastSeq, 0);
  });
});

describe('tasks', () => {
  test('a plan update replaces the SDK tasks and never touches the user tasks', () => {
    const mine = task({ id: 'u1', title: 'Write the changelog' });
    const plan = (status: 'pending' | 'completed') =>
      ev('task_update', 0, {
        turnId: 't1',
        todos: [{ content: 'Read', status }],
        tasks: [task({ id: 'sdk-s1-0', title: 'Read', status, source: 'sdk' })],
      });
    let state = fold([], snapshot({ tasks: [mine] }));
    state = apply(state, { ...plan('pending'), data: { ...plan('pending').data, seq: 1 } } as SessionEvent);
    state = apply(state, { ...plan('completed'), data: { ...plan('completed').data, seq: 2 } } as SessionEvent);
    assert.deepEqual(
      state.tasks.map((t) => [t.id, t.status]),
      [
        ['sdk-s1-0', 'completed'],
        ['u1', 'pending'],
      ],
    );
    state = sessionReducer(state, { type: 'taskSaved', task: { ...mine, status: 'completed' } });
    assert.equal(state.tasks[1]?.status, 'completed');
    state = sessionReducer(state, { type: 'taskDeleted', taskId: 'u1' });
    assert.equal(state.tasks.length, 1);
    const otherTab = task({ id: 'u2', title: 'Added in another tab' });
    state = apply(state, ev('tasks_changed', 3, { tasks: [...state.tasks, otherTab] }));
    assert.deepEqual(
      state.tasks.map((t) => t.id),
      ['sdk-s1-0', 'u2'],
    );
  });
});

describe('interactions', () => {
  test('a resolved interaction is not reopened by a replayed request', () => {
    const pending = interaction({ requestId: 'r1' });
    let state = fold([ev('permission_request', 1, { turnId: 't1', interaction: pending })]);
    const answered = { ...pending, status: 'answered' as const, resolution: 'answered' as const };
    state = sessionReducer(state, { type: 'interactionAnswered', interaction: answered });
    state = apply(state, ev('permission_request', 2, { turnId: 't1', interaction: pending }));
    assert.equal(state.interactions.r1?.status, 'answered');
  });

  test('a resolution for an interaction this view never saw is ignored', () => {
    const state = fold([
      ev('permission_resolved', 1, {
        turnId: 't1',
        requestId: 'nope',
        status: 'superseded',
        resolution: 'turn_ended',
        answer: null,
      }),
    ]);
    assert.deepEqual(state.interactions, {});
  });
});

describe('paging', () => {
  test('an older page goes in front, without duplicating rows already shown', () => {
    const start = fold(
      [],
      snapshot({
        messages: {
          messages: [row({ id: 'b', position: 5 }), row({ id: 'c', position: 6 })],
          turns: [],
          hasMore: true,
        },
      }),
    );
    const action: SessionAction = {
      type: 'olderPage',
      page: {
        messages: [row({ id: 'a', position: 4 }), row({ id: 'b', position: 5 })],
        turns: [turn({ id: 't0' })],
        hasMore: false,
      },
    };
    const state = sessionReducer(start, action);
    assert.deepEqual(state.order, ['a', 'b', 'c']);
    assert.equal(state.hasOlder, false);
    assert.equal(state.turns.t0?.status, 'completed');
  });
});

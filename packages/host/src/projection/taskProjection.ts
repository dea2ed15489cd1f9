import { compareTasks, type SdkTodo, type TaskStatus } from '@outrigger/host-api';
import type { SessionEventDraft, WriteUnit } from '../store/hostStore.ts';
import type { TaskRecord } from '../store/records.ts';

/*
 * The session's task list as the projection keeps it (seed 002, *todos replace the SDK
 * tasks*): the agent's plan replaces the `sdk` rows, the person's `user` rows are theirs. Pure: given
 * the session's rows as the store holds them, the rows to put, the ids to delete and the event that
 * carries the list after the change. The store only writes what it is given.
 */

/** A `plan_updated` to sync into the task list: the todos as the agent sent them. */
export interface SdkPlan {
  readonly turnId: string;
  readonly todos: readonly SdkTodo[];
  readonly now: number;
}

/** One change of the task list: what the store writes, and every task of the session after it. */
export interface TaskListChange {
  readonly put: readonly TaskRecord[];
  readonly deleteIds: readonly string[];
  /** In `listTasks` order (`compareTasks`). */
  readonly tasks: readonly TaskRecord[];
  readonly event: SessionEventDraft;
}

const knownTaskStatuses: ReadonlySet<string> = new Set<TaskStatus>(['pending', 'in_progress', 'completed']);

/** Seed 002's `mapStatus`: the three known statuses pass, anything else is `pending`. */
export function mapSdkTaskStatus(status: string): TaskStatus {
  return knownTaskStatuses.has(status) ? (status as TaskStatus) : 'pending';
}

export function sdkTaskId(sessionId: string, index: number): string {
  return `sdk-${sessionId}-${index}`;
}

/**
 * Seed 002: the plan replaces the session's `sdk` rows (`sdk-{sessionId}-{index}`, content → title,
 * status mapped, activeForm → description, index → sort_order) and `task_update` carries the raw todos
 * and every task after it. A row whose index survives keeps its `created_at`, and its `updated_at`
 * unless it changed, so the same todos twice give the same rows. `current`: the session's rows.
 */
export function syncSdkTasks(sessionId: string, current: readonly TaskRecord[], plan: SdkPlan): TaskListChange {
  const previous = new Map(current.filter((task) => task.source === 'sdk').map((task) => [task.id, task]));
  const rows = plan.todos.map((todo, index): TaskRecord => {
    const id = sdkTaskId(sessionId, index);
    const title = todo.content;
    const status = mapSdkTaskStatus(todo.status);
    const description = todo.activeForm ?? null;
    const before = previous.get(id);
    const unchanged =
      before !== undefined &&
      before.title === title &&
      before.status === status &&
      before.description === description &&
      before.sort_order === index;
    // Field order as the store reads rows back: the event's JSON stays what a read of the table gives.
    return {
      id,
      session_id: sessionId,
      title,
      status,
      description,
      sort_order: index,
      source: 'sdk',
      created_at: before?.created_at ?? plan.now,
      updated_at: unchanged ? before.updated_at : plan.now,
    };
  });
  const kept = new Set(rows.map((row) => row.id));
  const tasks = [...current.filter((task) => task.source !== 'sdk'), ...rows].sort(compareTasks);
  return {
    put: rows.filter((row) => !sameRow(previous.get(row.id), row)),
    deleteIds: [...previous.keys()].filter((id) => !kept.has(id)),
    tasks,
    event: {
      type: 'task_update',
      data: {
        session_id: sessionId,
        turnId: plan.turnId,
        todos: plan.todos.map((todo) => ({ ...todo })),
        tasks,
      },
    },
  };
}

/**
 * The plan as it stood at the end of the last of `turnIds` (a fork's copied turns): the todos of the last
 * `task_update` those turns made, in the order of `events` (the source's log); undefined when they made none.
 * The log, not the source's task rows: those are the plan as it is now, after turns the fork does not have.
 */
export function planOfTurns(
  events: Iterable<{ readonly type: string; readonly data: unknown }>,
  turnIds: ReadonlySet<string>,
): { readonly turnId: string; readonly todos: readonly SdkTodo[] } | undefined {
  let plan: { turnId: string; todos: readonly SdkTodo[] } | undefined;
  for (const event of events) {
    if (event.type !== 'task_update') continue;
    const data = event.data as { readonly turnId?: unknown; readonly todos?: unknown };
    if (typeof data.turnId !== 'string' || !turnIds.has(data.turnId) || !Array.isArray(data.todos)) continue;
    plan = { turnId: data.turnId, todos: data.todos as SdkTodo[] };
  }
  return plan;
}

/**
 * A user task added or edited (`put`) or deleted (`deleteId`): `tasks_changed` with every task of the
 * session after it. `current`: the session's rows before the change.
 */
export function changeUserTask(
  sessionId: string,
  current: readonly TaskRecord[],
  change: { readonly put: TaskRecord } | { readonly deleteId: string },
): TaskListChange {
  const put = 'put' in change ? [change.put] : [];
  const deleteIds = 'deleteId' in change ? [change.deleteId] : [];
  const replaced = new Set([...put.map((task) => task.id), ...deleteIds]);
  const tasks = [...current.filter((task) => !replaced.has(task.id)), ...put].sort(compareTasks);
  return { put, deleteIds, tasks, event: { type: 'tasks_changed', data: { session_id: sessionId, tasks } } };
}

/** The change as a unit of its own (a user task edit). */
export function taskUnit(change: TaskListChange): WriteUnit {
  return withTaskChange({}, change);
}

/**
 * A projection's unit with a task change in it: its rows after the unit's own, its event before the
 * unit's events (where the store put the plan's `task_update` when it ran the sync itself).
 */
export function withTaskChange(unit: WriteUnit, change: TaskListChange): WriteUnit {
  const tasks = [...(unit.tasks ?? []), ...change.put];
  const deleteTaskIds = [...(unit.deleteTaskIds ?? []), ...change.deleteIds];
  return {
    ...unit,
    ...(tasks.length > 0 ? { tasks } : {}),
    ...(deleteTaskIds.length > 0 ? { deleteTaskIds } : {}),
    sessionEvents: [change.event, ...(unit.sessionEvents ?? [])],
  };
}

function sameRow(a: TaskRecord | undefined, b: TaskRecord): boolean {
  return (
    a !== undefined &&
    a.title === b.title &&
    a.status === b.status &&
    a.description === b.description &&
    a.sort_order === b.sort_order &&
    a.created_at === b.created_at &&
    a.updated_at === b.updated_at
  );
}

import type { PlanEntry, PlanEntryStatus, SessionUpdate } from '@agentclientprotocol/sdk';
import type { SdkTodo, Task } from '@outrigger/host-api';

/*
 * The agent's plan (TodoWrite's todos, the host's `sdk` task rows) as ACP's `plan`. The person's own tasks
 * (`source: "user"`, `tasks_changed`) are not the agent's plan and never appear in it.
 */

/** TodoWrite has no priority; ACP requires one, and "medium" claims neither urgency nor unimportance. */
export const todoPriority = 'medium' satisfies PlanEntry['priority'];

const statuses: ReadonlySet<string> = new Set<PlanEntryStatus>(['pending', 'in_progress', 'completed']);

/** An unknown status reads as pending, as the host's task sync reads it. */
function statusOf(status: string): PlanEntryStatus {
  return statuses.has(status) ? (status as PlanEntryStatus) : 'pending';
}

/** The plan of a `task_update`'s todos (or a TodoWrite call's `input.todos`), whole: ACP replaces the plan. */
export function planOfTodos(todos: readonly Pick<SdkTodo, 'content' | 'status'>[]): SessionUpdate {
  return {
    sessionUpdate: 'plan',
    entries: todos.map((todo) => ({ content: todo.content, priority: todoPriority, status: statusOf(todo.status) })),
  };
}

/**
 * The plan of a session's task rows (a snapshot's `tasks`, for `session/load`): the `sdk` rows in their order;
 * undefined when the agent has none.
 */
export function planOfTasks(tasks: readonly Task[]): SessionUpdate | undefined {
  const agents = tasks.filter((task) => task.source === 'sdk').sort((a, b) => a.sort_order - b.sort_order);
  if (agents.length === 0) return undefined;
  return planOfTodos(agents.map((task) => ({ content: task.title, status: task.status })));
}

/** TodoWrite's todos from its input, or undefined when they are not there in the shape it sends. */
export function todosOfInput(
  input: Readonly<Record<string, unknown>>,
): Pick<SdkTodo, 'content' | 'status'>[] | undefined {
  if (!Array.isArray(input.todos)) return undefined;
  const todos = input.todos.flatMap((todo: unknown) => {
    const { content, status } = (typeof todo === 'object' && todo !== null ? todo : {}) as Record<string, unknown>;
    return typeof content === 'string' ? [{ content, status: typeof status === 'string' ? status : 'pending' }] : [];
  });
  return todos;
}

import type { PlanEntry } from '@outrigger/protocol';
import { asRecord, type JsonRecord, nonEmptyString, stringOrEmpty } from '../shared/sdkValues.ts';

/** Tools whose results change the plan. */
export const PLAN_TOOLS: ReadonlySet<string> = new Set(['TodoWrite', 'TaskCreate', 'TaskUpdate', 'TaskList']);

const PLAN_STATUSES: ReadonlySet<string> = new Set(['pending', 'in_progress', 'completed']);

/**
 * The session's plan, as one full set: TodoWrite replaces it (ids `todo-<index>`), TaskCreate,
 * TaskUpdate and TaskList fold into it by task id. `fold` reports whether the set changed, so a
 * result seen twice (PostToolUse hook, then the canonical tool_result) publishes once.
 */
export class TaskPlan {
  #entries: PlanEntry[] = [];

  /** Replaced, never mutated, on every change: safe to hand to an event as is. */
  get entries(): PlanEntry[] {
    return this.#entries;
  }

  fold(toolName: string, input: JsonRecord, toolResponse: unknown): boolean {
    const next = this.#next(toolName, input, asRecord(toolResponse));
    if (next === undefined || sameEntries(next, this.#entries)) return false;
    this.#entries = next;
    return true;
  }

  #next(toolName: string, input: JsonRecord, response: JsonRecord | undefined): PlanEntry[] | undefined {
    switch (toolName) {
      case 'TodoWrite':
        return todoEntries(Array.isArray(input.todos) ? input.todos : response?.newTodos);
      case 'TaskCreate':
        return this.#created(input, asRecord(response?.task));
      case 'TaskUpdate':
        return response?.success === false ? undefined : this.#updated(input, response);
      case 'TaskList':
        return Array.isArray(response?.tasks) ? this.#listed(response.tasks) : undefined;
      default:
        return undefined;
    }
  }

  #created(input: JsonRecord, task: JsonRecord | undefined): PlanEntry[] | undefined {
    const id = nonEmptyString(task?.id);
    if (id === undefined) return undefined;
    const entry: PlanEntry = {
      id,
      content: nonEmptyString(task?.subject) ?? stringOrEmpty(input.subject),
      status: 'pending',
    };
    const description = nonEmptyString(task?.description) ?? nonEmptyString(input.description);
    if (description !== undefined) entry.description = description;
    const index = this.#entries.findIndex((existing) => existing.id === id);
    if (index === -1) return [...this.#entries, entry];
    const next = [...this.#entries];
    next[index] = { ...entry, status: this.#entries[index]?.status ?? 'pending' };
    return next;
  }

  #updated(input: JsonRecord, response: JsonRecord | undefined): PlanEntry[] | undefined {
    const id = nonEmptyString(response?.taskId) ?? nonEmptyString(input.taskId);
    if (id === undefined) return undefined;
    const index = this.#entries.findIndex((existing) => existing.id === id);
    const status = nonEmptyString(asRecord(response?.statusChange)?.to) ?? nonEmptyString(input.status);
    if (status === 'deleted') return index === -1 ? undefined : this.#entries.filter((entry) => entry.id !== id);
    const current = this.#entries[index];
    const entry: PlanEntry = current === undefined ? { id, content: '', status: 'pending' } : { ...current };
    if (status !== undefined) entry.status = planStatus(status);
    const subject = nonEmptyString(input.subject);
    if (subject !== undefined) entry.content = subject;
    const description = nonEmptyString(input.description);
    if (description !== undefined) entry.description = description;
    if (current === undefined) return [...this.#entries, entry];
    const next = [...this.#entries];
    next[index] = entry;
    return next;
  }

  /** TaskList is authoritative for which tasks exist; descriptions it omits are kept. */
  #listed(tasks: unknown[]): PlanEntry[] {
    const next: PlanEntry[] = [];
    for (const item of tasks) {
      const task = asRecord(item);
      const id = nonEmptyString(task?.id);
      if (task === undefined || id === undefined) continue;
      const entry: PlanEntry = { id, content: stringOrEmpty(task.subject), status: planStatus(task.status) };
      const description = this.#entries.find((existing) => existing.id === id)?.description;
      if (description !== undefined) entry.description = description;
      next.push(entry);
    }
    return next;
  }
}

function todoEntries(todos: unknown): PlanEntry[] | undefined {
  if (!Array.isArray(todos)) return undefined;
  const entries: PlanEntry[] = [];
  for (let index = 0; index < todos.length; index++) {
    const todo = asRecord(todos[index]);
    if (todo === undefined) continue;
    const entry: PlanEntry = {
      id: `todo-${index}`,
      content: stringOrEmpty(todo.content),
      status: planStatus(todo.status),
    };
    const description = nonEmptyString(todo.activeForm);
    if (description !== undefined) entry.description = description;
    entries.push(entry);
  }
  return entries;
}

function planStatus(value: unknown): string {
  return typeof value === 'string' && PLAN_STATUSES.has(value) ? value : 'pending';
}

function sameEntries(left: readonly PlanEntry[], right: readonly PlanEntry[]): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index++) {
    const a = left[index];
    const b = right[index];
    if (a?.id !== b?.id || a?.content !== b?.content || a?.status !== b?.status || a?.description !== b?.description) {
      return false;
    }
  }
  return true;
}

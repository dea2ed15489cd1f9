import { z } from 'zod';
import { hostLimits } from './limits.ts';

/**
 * The tasks table of seed 002. `sdk` rows mirror the agent's plan (TodoWrite / TaskCreate+TaskUpdate)
 * and are replaced as a whole on each `plan_updated`; `user` rows belong to the person and are never
 * touched by that sync. SDK rows sort first (the plan's order), user rows after them.
 */
export const taskStatuses = ['pending', 'in_progress', 'completed'] as const;
export type TaskStatus = (typeof taskStatuses)[number];

export const taskSources = ['user', 'sdk'] as const;
export type TaskSource = (typeof taskSources)[number];

export const taskSchema = z.object({
  /** `sdk-{sessionId}-{index}` for SDK rows. */
  id: z.string(),
  session_id: z.string(),
  title: z.string(),
  status: z.enum(taskStatuses),
  description: z.string().nullable(),
  sort_order: z.number().int(),
  source: z.enum(taskSources),
  created_at: z.number(),
  updated_at: z.number(),
});
export type Task = z.output<typeof taskSchema>;

/**
 * The one order of tasks, the store's `ORDER BY session_id, CASE source WHEN 'sdk' THEN 0 ELSE 1 END,
 * sort_order, created_at, id`: a list built from events (a client, the host's projection) must come out
 * the way `GET /api/tasks` reads it, ties included. Ids compare by UTF-16 code unit, SQLite's `BINARY`
 * by UTF-8 byte: the same order for the ASCII ids the host makes.
 */
export function compareTasks(a: Task, b: Task): number {
  return (
    compareText(a.session_id, b.session_id) ||
    (a.source === 'sdk' ? 0 : 1) - (b.source === 'sdk' ? 0 : 1) ||
    a.sort_order - b.sort_order ||
    a.created_at - b.created_at ||
    compareText(a.id, b.id)
  );
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A todo as the agent sent it (TodoWrite's shape), carried raw in `task_update`. */
export const sdkTodoSchema = z.object({
  content: z.string(),
  status: z.string(),
  activeForm: z.string().optional(),
});
export type SdkTodo = z.output<typeof sdkTodoSchema>;

const title = z.string().trim().min(1).max(hostLimits.maxTaskTitleChars);
const description = z.string().max(hostLimits.maxTaskDescriptionChars);

export const createTaskBodySchema = z.strictObject({
  session_id: z.string().min(1),
  title,
  description: description.optional(),
  status: z.enum(taskStatuses).optional(),
});
export type CreateTaskBody = z.output<typeof createTaskBodySchema>;

export const patchTaskBodySchema = z
  .strictObject({
    title: title.optional(),
    description: description.nullable().optional(),
    status: z.enum(taskStatuses).optional(),
    /** Among user tasks; they still sort after the SDK's plan. */
    sort_order: z.number().int().min(0).max(1_000_000).optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { error: 'nothing to change' });
export type PatchTaskBody = z.output<typeof patchTaskBodySchema>;

export const tasksQuerySchema = z.strictObject({ session_id: z.string().min(1).optional() });

export const taskListSchema = z.object({ tasks: z.array(taskSchema) });
export const taskResponseSchema = z.object({ task: taskSchema });

import type { SidecarEventPayload } from '@outrigger/protocol';
import { terminalTaskStatus } from '../shared/sdkValues.ts';

export type BackgroundTaskCounts = Omit<SidecarEventPayload<'background_tasks_changed'>, 'turnId'>;

/** One entry of the SDK's `background_tasks_changed` set. */
export interface LiveBackgroundTask {
  readonly taskId: string;
  readonly taskType: string | undefined;
}

type DelegatedStatus = 'running' | 'completed' | 'failed' | 'stopped';

/** Whether a task was in the live set before this update, how many were, and which left it. */
export interface LevelChange {
  readonly wasObserved: boolean;
  readonly previousCount: number;
  readonly left: readonly string[];
}

const DELEGATED_TASK_TYPE = 'local_agent';

/**
 * What is known about a Query's background tasks: the SDK's live set (a level signal, replaced whole on
 * every update), every task that was ever live, the tasks whose terminal edge was seen, and the
 * delegated subagent tasks by status. Counts only leave it, never descriptions.
 */
export class BackgroundTaskLedger {
  #levelObserved = false;
  #live = new Set<string>();
  readonly #observed = new Set<string>();
  readonly #ended = new Set<string>();
  readonly #delegated = new Map<string, DelegatedStatus>();
  /** The task each launching tool call (Bash `run_in_background`, Agent) started, by tool_use id. */
  readonly #taskOfToolCall = new Map<string, string>();
  /** The Turn that was running when each task was first seen: the Turn whose background work it is. */
  readonly #owners = new Map<string, string>();

  get liveCount(): number {
    return this.#live.size;
  }

  get delegatedRunningCount(): number {
    let running = 0;
    for (const status of this.#delegated.values()) if (status === 'running') running++;
    return running;
  }

  /** `owner`: the Turn running now, which owns the tasks seen for the first time. */
  replaceLevel(tasks: readonly LiveBackgroundTask[], owner?: string): LevelChange {
    const previous = this.#live;
    const change = {
      wasObserved: this.#levelObserved,
      previousCount: previous.size,
      left: [...previous].filter((taskId) => !tasks.some((task) => task.taskId === taskId)),
    };
    this.#levelObserved = true;
    this.#live = new Set(tasks.map((task) => task.taskId));
    for (const task of tasks) {
      this.#observed.add(task.taskId);
      this.#noteOwner(task.taskId, owner);
      if (task.taskType === DELEGATED_TASK_TYPE) this.#noteDelegated(task.taskId);
    }
    return change;
  }

  started(taskId: string, taskType: string | undefined, toolUseId?: string, owner?: string): void {
    this.#noteOwner(taskId, owner);
    if (taskType === DELEGATED_TASK_TYPE) this.#noteDelegated(taskId);
    if (toolUseId !== undefined) this.#taskOfToolCall.set(toolUseId, taskId);
  }

  /** The Turn whose background work the task is; undefined when it was first seen with no Turn running. */
  ownerOf(taskId: string): string | undefined {
    return this.#owners.get(taskId);
  }

  /** True while the task is live or a started delegated task, and no terminal edge was seen for it. */
  isRunning(taskId: string): boolean {
    if (this.#ended.has(taskId)) return false;
    return this.#live.has(taskId) || this.#delegated.get(taskId) === 'running';
  }

  /** The task a tool call launched, if a `task_started` named it. */
  taskOfToolCall(toolUseId: string): string | undefined {
    return this.#taskOfToolCall.get(toolUseId);
  }

  /** A terminal edge; true when it ended the last running delegated task. */
  ended(taskId: string, status: string | undefined): boolean {
    this.#ended.add(taskId);
    const before = this.#delegated.get(taskId);
    if (before !== 'running') return false;
    this.#delegated.set(taskId, terminalTaskStatus(status) ?? 'completed');
    return this.delegatedRunningCount === 0;
  }

  counts(): BackgroundTaskCounts {
    const delegated = { running: 0, completed: 0, failed: 0, stopped: 0 };
    for (const status of this.#delegated.values()) delegated[status]++;
    let unended = 0;
    for (const taskId of this.#observed) if (!this.#ended.has(taskId)) unended++;
    return {
      runningCount: this.#live.size,
      backgroundTasksObservedCount: this.#observed.size,
      backgroundTasksRunningCount: unended,
      backgroundTasksNoLongerLiveCount: this.#observed.size - this.#live.size,
      delegatedTasksKnownCount: this.#delegated.size,
      delegatedTasksRunningCount: delegated.running,
      delegatedTasksCompletedCount: delegated.completed,
      delegatedTasksFailedCount: delegated.failed,
      delegatedTasksStoppedCount: delegated.stopped,
    };
  }

  #noteOwner(taskId: string, owner: string | undefined): void {
    if (owner !== undefined && !this.#owners.has(taskId)) this.#owners.set(taskId, owner);
  }

  #noteDelegated(taskId: string): void {
    if (!this.#delegated.has(taskId)) this.#delegated.set(taskId, this.#ended.has(taskId) ? 'completed' : 'running');
  }
}

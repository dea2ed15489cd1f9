import { endedTaskStatuses, type ToolUseBlock } from '@outrigger/host-api';
import type { SessionViewState } from './sessionState.ts';

/**
 * Background work that has ended, for the Background work panel: the host's list (`background_tasks`) holds
 * only what still runs, so a job that finished would vanish from the panel. The transcript keeps each job's
 * call with how it ended (a command's `background.status`, an Agent task's `agentTask`), live and after a
 * reload alike; this reads them from there.
 */
export interface FinishedJob {
  readonly toolUseId: string;
  readonly kind: 'agent' | 'command';
  readonly description: string;
  /** The task's last status as Claude Code reported it: `completed`, `failed`, `killed`, `stopped`, … */
  readonly outcome: string;
  /** What the task said it did, when it said (Agent tasks). */
  readonly summary: string | null;
}

/** The session's ended background jobs, newest first; a job the host still lists as running is not one. */
export function finishedBackgroundJobs(
  view: Pick<SessionViewState, 'rows' | 'order' | 'backgroundTasks'>,
): FinishedJob[] {
  const running = new Set(view.backgroundTasks.map((task) => task.tool_use_id));
  const finished: FinishedJob[] = [];
  for (const id of view.order) {
    const tool = view.rows[id]?.content.find((block): block is ToolUseBlock => block.type === 'tool_use');
    if (tool === undefined || running.has(tool.id)) continue;
    const job = finishedJobOf(tool);
    if (job !== undefined) finished.push(job);
  }
  return finished.reverse();
}

function finishedJobOf(tool: ToolUseBlock): FinishedJob | undefined {
  const described = (fallback: string) => {
    const description = tool.input.description;
    return typeof description === 'string' && description.trim() !== '' ? description : fallback;
  };
  if (tool.background !== null && tool.callType === 'command') {
    if (!endedTaskStatuses.has(tool.background.status)) return undefined;
    const command = typeof tool.input.command === 'string' ? tool.input.command : 'Command';
    return {
      toolUseId: tool.id,
      kind: 'command',
      description: described(command),
      outcome: tool.background.status,
      summary: null,
    };
  }
  if (tool.agentTask !== null) {
    if (!endedTaskStatuses.has(tool.agentTask.status)) return undefined;
    return {
      toolUseId: tool.id,
      kind: 'agent',
      description: tool.agentTask.description ?? described('Subagent'),
      outcome: tool.agentTask.status,
      summary: tool.agentTask.summary,
    };
  }
  return undefined;
}

import type { BackgroundTask, Task } from '@outrigger/host-api';
import { useState } from 'react';
import type { FinishedJob } from '../data/backgroundJobs.ts';
import { formatElapsed, messageOf } from '../data/format.ts';
import { useNow } from './hooks.ts';
import { Icon } from './Icon.tsx';
import './backgroundWork.css';

export interface TaskActions {
  add(title: string): Promise<void>;
  update(taskId: string, change: { title?: string; status?: Task['status'] }): Promise<void>;
  remove(taskId: string): Promise<void>;
}

/** The plan the agent keeps (read-only, live) above the person's own tasks (add, edit, tick, delete). */
export function TaskPanel({
  tasks,
  actions,
  closed = false,
}: {
  tasks: readonly Task[];
  actions: TaskActions;
  /** A closed session takes no new tasks (the host refuses them): the box says so and is disabled. */
  closed?: boolean;
}) {
  const [title, setTitle] = useState('');
  const [error, setError] = useState<string | null>(null);
  const done = tasks.filter((task) => task.status === 'completed').length;
  const run = (work: Promise<void>) =>
    work.then(
      () => setError(null),
      (e: unknown) => setError(messageOf(e)),
    );
  return (
    <section className="panel-section" aria-labelledby="tasks-heading">
      <h2 id="tasks-heading">
        Tasks{' '}
        {tasks.length > 0 && (
          <span className="muted">
            {done}/{tasks.length}
          </span>
        )}
      </h2>
      {tasks.length > 0 && (
        <div
          className="progress"
          role="progressbar"
          aria-label="Tasks done"
          aria-valuemin={0}
          aria-valuemax={tasks.length}
          aria-valuenow={done}
        >
          <div style={{ width: `${(done / tasks.length) * 100}%` }} />
        </div>
      )}
      <ul className="task-list">
        {tasks.map((task) =>
          task.source === 'sdk' ? (
            <SdkTask key={task.id} task={task} />
          ) : (
            <UserTask key={task.id} task={task} actions={actions} run={run} />
          ),
        )}
      </ul>
      {tasks.length === 0 && <p className="muted small">No tasks yet. Claude’s plan appears here as it works.</p>}
      <form
        className="add-task"
        onSubmit={(event) => {
          event.preventDefault();
          const value = title.trim();
          if (value === '') return;
          void run(actions.add(value).then(() => setTitle('')));
        }}
      >
        <input
          className="input"
          value={title}
          onChange={(event) => setTitle(event.currentTarget.value)}
          placeholder={closed ? 'Closed: no new tasks' : 'Add a task'}
          aria-label="New task"
          maxLength={500}
          disabled={closed}
        />
        <button type="submit" className="btn" aria-label="Add task" disabled={closed || title.trim() === ''}>
          <Icon name="plus" />
        </button>
      </form>
      {error !== null && (
        <p className="composer-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

const statusWords: Readonly<Record<Task['status'], string>> = {
  pending: 'pending',
  in_progress: 'in progress',
  completed: 'done',
};

function SdkTask({ task }: { task: Task }) {
  return (
    <li className="task" data-status={task.status}>
      <span className="task-mark" aria-hidden="true">
        <Icon name={task.status === 'completed' ? 'check' : task.status === 'in_progress' ? 'half' : 'circle'} />
      </span>
      <span className="task-title">
        {task.status === 'in_progress' && task.description !== null ? task.description : task.title}
        <span className="sr-only"> ({statusWords[task.status]}, from Claude’s plan)</span>
      </span>
      <span className="task-source" aria-hidden="true">
        plan
      </span>
    </li>
  );
}

function UserTask({
  task,
  actions,
  run,
}: {
  task: Task;
  actions: TaskActions;
  run: (work: Promise<void>) => Promise<void>;
}) {
  const [editing, setEditing] = useState(false);
  // The tick shows at once; the host's answer (or its refusal) settles it.
  const [ticking, setTicking] = useState<Task['status'] | null>(null);
  const status = ticking ?? task.status;
  return (
    <li className="task" data-status={status}>
      <input
        type="checkbox"
        checked={status === 'completed'}
        aria-label={`Done: ${task.title}`}
        onChange={(event) => {
          const next = event.currentTarget.checked ? 'completed' : 'pending';
          setTicking(next);
          void run(actions.update(task.id, { status: next })).finally(() => setTicking(null));
        }}
      />
      {editing ? (
        <form
          style={{ flex: 1 }}
          onSubmit={(event) => {
            event.preventDefault();
            const title = String(new FormData(event.currentTarget).get('title') ?? '').trim();
            setEditing(false);
            if (title !== '' && title !== task.title) void run(actions.update(task.id, { title }));
          }}
        >
          <input
            className="input"
            name="title"
            defaultValue={task.title}
            aria-label="Task title"
            // biome-ignore lint/a11y/noAutofocus: the person just asked to edit this task
            autoFocus
            style={{ width: '100%' }}
            onBlur={(event) => event.currentTarget.form?.requestSubmit()}
            onKeyDown={(event) => {
              if (event.key === 'Escape') setEditing(false);
            }}
          />
        </form>
      ) : (
        <span className="task-title">{task.title}</span>
      )}
      <span className="task-actions">
        <button
          type="button"
          className="icon-btn"
          aria-label={`Edit task: ${task.title}`}
          onClick={() => setEditing(true)}
        >
          <Icon name="edit" />
        </button>
        <button
          type="button"
          className="icon-btn"
          aria-label={`Delete task: ${task.title}`}
          onClick={() => void run(actions.remove(task.id))}
        >
          <Icon name="trash" />
        </button>
      </span>
    </li>
  );
}

/** How an ended job reads: Claude Code's status in words. */
const outcomeLabels: Readonly<Record<string, string>> = {
  completed: 'finished',
  failed: 'failed',
  error: 'failed',
  killed: 'stopped',
  stopped: 'stopped',
  canceled: 'canceled',
  cancelled: 'canceled',
};

/**
 * What runs in the background (live, with its elapsed time), then what ran and ended, folded under a
 * "Finished" summary, each with how it ended: a finished job stays where the person last saw it.
 */
export function BackgroundWork({
  tasks,
  finished = [],
}: {
  tasks: readonly BackgroundTask[];
  finished?: readonly FinishedJob[];
}) {
  const now = useNow(tasks.length > 0);
  return (
    <section className="panel-section" aria-labelledby="bg-heading">
      <h2 id="bg-heading">Background work</h2>
      {tasks.length === 0 ? (
        <p className="muted small">Nothing runs in the background.</p>
      ) : (
        <ul className="task-list">
          {tasks.map((task) => (
            <li key={task.tool_use_id} className="task">
              <span className="task-mark" aria-hidden="true">
                <Icon name={task.kind === 'agent' ? 'agent' : 'terminal'} />
              </span>
              <span className="task-title">
                {task.description ?? (task.kind === 'agent' ? 'Subagent' : 'Command')}
                <span className="muted small">
                  {' '}
                  · {task.status} · {formatElapsed(now - task.startedAt)}
                </span>
              </span>
            </li>
          ))}
        </ul>
      )}
      {finished.length > 0 && (
        <details className="bg-finished">
          <summary className="disclosure">
            <Icon name="chevron" className="chev" />
            Finished <span className="bg-finished-count">{finished.length}</span>
          </summary>
          <ul className="task-list" aria-label="Finished background work">
            {finished.map((job) => {
              const outcome = outcomeLabels[job.outcome] ?? job.outcome;
              return (
                <li key={job.toolUseId} className="task" data-outcome={outcome}>
                  <span className="task-mark" aria-hidden="true">
                    <Icon name={outcome === 'finished' ? 'check' : outcome === 'failed' ? 'alert' : 'stop'} />
                  </span>
                  <span className="task-title">
                    {job.description}
                    <span className="muted small"> · {outcome}</span>
                    {job.summary !== null && <span className="bg-summary muted small">{job.summary}</span>}
                  </span>
                </li>
              );
            })}
          </ul>
        </details>
      )}
    </section>
  );
}

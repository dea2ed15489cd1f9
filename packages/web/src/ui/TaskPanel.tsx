import type { BackgroundTask, Task } from '@outrigger/host-api';
import { useState } from 'react';
import { formatElapsed, messageOf } from '../data/format.ts';
import { useNow } from './hooks.ts';
import { Icon } from './Icon.tsx';

export interface TaskActions {
  add(title: string): Promise<void>;
  update(taskId: string, change: { title?: string; status?: Task['status'] }): Promise<void>;
  remove(taskId: string): Promise<void>;
}

/** The plan the agent keeps (read-only, live) above the person's own tasks (add, edit, tick, delete). */
export function TaskPanel({ tasks, actions }: { tasks: readonly Task[]; actions: TaskActions }) {
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
          placeholder="Add a task"
          aria-label="New task"
          maxLength={500}
        />
        <button type="submit" className="btn" aria-label="Add task" disabled={title.trim() === ''}>
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

export function BackgroundWork({ tasks }: { tasks: readonly BackgroundTask[] }) {
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
    </section>
  );
}

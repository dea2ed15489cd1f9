import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TaskPlan } from './taskPlan.ts';

test('TodoWrite replaces the whole plan with index ids; unknown statuses become pending', () => {
  const plan = new TaskPlan();
  assert.equal(
    plan.fold(
      'TodoWrite',
      {
        todos: [
          { content: 'a', status: 'completed', activeForm: 'Doing a' },
          { content: 'b', status: 'blocked' },
        ],
      },
      undefined,
    ),
    true,
  );
  assert.deepEqual(plan.entries, [
    { id: 'todo-0', content: 'a', status: 'completed', description: 'Doing a' },
    { id: 'todo-1', content: 'b', status: 'pending' },
  ]);
  assert.equal(plan.fold('TodoWrite', { todos: [{ content: 'c', status: 'pending' }] }, undefined), true);
  assert.deepEqual(plan.entries, [{ id: 'todo-0', content: 'c', status: 'pending' }]);
});

test('the same result folded twice reports no change the second time', () => {
  const plan = new TaskPlan();
  const input = { todos: [{ content: 'a', status: 'pending', activeForm: 'A' }] };
  assert.equal(plan.fold('TodoWrite', input, undefined), true);
  const before = plan.entries;
  assert.equal(plan.fold('TodoWrite', input, { oldTodos: [], newTodos: input.todos }), false);
  assert.equal(plan.entries, before);
});

test('TaskCreate appends, TaskUpdate edits and deletes, by task id', () => {
  const plan = new TaskPlan();
  plan.fold('TaskCreate', { subject: 'A' }, { task: { id: '1', subject: 'A', description: 'first' } });
  plan.fold('TaskCreate', { subject: 'B' }, { task: { id: '2', subject: 'B', description: '' } });
  plan.fold(
    'TaskUpdate',
    { taskId: '2', status: 'in_progress', subject: 'B2' },
    { success: true, taskId: '2', statusChange: { from: 'pending', to: 'in_progress' } },
  );
  assert.deepEqual(plan.entries, [
    { id: '1', content: 'A', status: 'pending', description: 'first' },
    { id: '2', content: 'B2', status: 'in_progress' },
  ]);
  assert.equal(plan.fold('TaskUpdate', { taskId: '1', status: 'deleted' }, { success: true, taskId: '1' }), true);
  assert.deepEqual(
    plan.entries.map((entry) => entry.id),
    ['2'],
  );
  assert.equal(plan.fold('TaskUpdate', { taskId: '2', status: 'completed' }, { success: false, taskId: '2' }), false);
});

test('TaskList is the authoritative set and keeps known descriptions', () => {
  const plan = new TaskPlan();
  plan.fold('TaskCreate', { subject: 'A' }, { task: { id: '1', subject: 'A', description: 'first' } });
  plan.fold('TaskCreate', { subject: 'B' }, { task: { id: '2', subject: 'B' } });
  plan.fold('TaskList', {}, { tasks: [{ id: '1', subject: 'A', status: 'completed', blockedBy: [] }] });
  assert.deepEqual(plan.entries, [{ id: '1', content: 'A', status: 'completed', description: 'first' }]);
});

test('other tools and malformed results leave the plan alone', () => {
  const plan = new TaskPlan();
  assert.equal(plan.fold('Bash', { todos: [] }, undefined), false);
  assert.equal(plan.fold('TaskCreate', {}, { task: {} }), false);
  assert.equal(plan.fold('TodoWrite', { todos: 'nope' }, undefined), false);
  assert.deepEqual(plan.entries, []);
});

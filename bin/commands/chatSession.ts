import { randomUUID } from 'node:crypto';
import {
  type CancelResult,
  type InteractionRequested,
  type InteractiveResult,
  isTurnTerminalEventType,
  type SidecarClient,
  type SidecarEvent,
} from '@outrigger/protocol';
import { cancelOutcomeText, type OpenDialog } from './cancelOutcome.ts';
import type { ChatRenderer } from './chatRenderer.ts';
import { errorText } from './errorText.ts';
import {
  approvalDialog,
  DECLINED,
  type InteractionAnswer,
  type InteractionDialog,
  userInputDialog,
} from './interactionDialog.ts';
import type { LineReader } from './lineReader.ts';
import { styled } from './terminalText.ts';

/** The budgets a Ctrl-C cancel gives the sidecar to interrupt Claude Code and to drain its output. */
export const CANCEL_BUDGETS = { interruptTimeoutMs: 2_000, drainTimeoutMs: 2_000 } as const;

export const CHAT_HELP = [
  'Type a message and press Enter to send it to Claude Code.',
  '  /help   this help',
  '  /quit   close the session and exit (so do Ctrl-C at the prompt and Ctrl-D)',
  'Ctrl-C while Claude is working cancels the turn.',
];

/** Why an answer did not reach Claude Code, per `submit_interactive` disposition (reference §3.6). */
const NOT_APPLIED: Record<Exclude<InteractiveResult['disposition'], 'answered'>, string> = {
  superseded: '(answer not applied: Claude Code had stopped waiting for it, the turn was canceled or closed)',
  conflict: '(answer not applied: a different answer to this request was already given)',
  pending: '(answer not applied yet: Claude Code still waits for it)',
  unknown: '(answer not applied: Claude Code no longer knows this request)',
};

export interface ChatSessionOptions {
  client: SidecarClient;
  agentSessionId: string;
  reader: LineReader;
  renderer: ChatRenderer;
  /** Shows an input prompt: for the next message, or for the answer to a question or approval. */
  showPrompt(prompt: string, purpose: 'message' | 'answer'): void;
  /** Takes an answer's prompt away: Ctrl-C was pressed at it, or its turn ended without an answer. */
  withdrawPrompt?(): void;
  /**
   * A person types at a terminal, possibly ahead while a turn runs: such a line waits to be the next
   * message (and is shown when it is sent), and an answer is taken only from a line typed after its
   * question was shown. Piped input (false) answers in order whatever asks next.
   */
  interactive?: boolean;
}

interface ActiveTurn {
  readonly turnId: string;
  /** The dialog waiting for the user's line, and its prompt. */
  asking: { readonly kind: OpenDialog; readonly prompt: string } | undefined;
  readonly ended: Promise<void>;
  end(): void;
  /** Aborts a dialog still waiting for a line once the turn is over. */
  readonly dialogs: AbortController;
  interactions: Promise<void>;
  cancel: Promise<void> | undefined;
}

/**
 * The terminal conversation with one sidecar session: each typed line becomes a turn, approvals and
 * questions are asked inline, Ctrl-C cancels the running turn or, at the prompt, ends the chat.
 */
export class ChatSession {
  readonly #options: ChatSessionOptions;
  #turn: ActiveTurn | undefined;

  constructor(options: ChatSessionOptions) {
    this.#options = options;
  }

  /** Runs until input ends, `/quit`, Ctrl-C at the prompt or the sidecar going away. */
  async run(): Promise<void> {
    const { client, reader, renderer } = this.#options;
    const unsubscribe = client.onEvent((event) => this.#onEvent(event));
    const unwatch = client.onClose(() => {
      this.#turn?.end();
      reader.end({ discard: true });
    });
    try {
      for (;;) {
        if (client.closed || reader.ended) return;
        const typedAhead = this.#options.interactive === true && reader.queued > 0;
        if (!typedAhead) this.#options.showPrompt('› ', 'message');
        const line = await reader.next();
        if (line === undefined) return;
        if (typedAhead) renderer.line(`› ${line}`);
        const text = line.trim();
        if (text === '') continue;
        if (text === '/quit' || text === '/exit') return;
        if (text === '/help') {
          for (const help of CHAT_HELP) renderer.line(help);
          continue;
        }
        if (text.startsWith('/') && !text.includes(' ')) {
          renderer.line(`unknown command ${text}; /help lists the commands`);
          continue;
        }
        await this.#runTurn(text);
      }
    } finally {
      unsubscribe();
      unwatch();
    }
  }

  /** Whether a turn is running. */
  get busy(): boolean {
    return this.#turn !== undefined;
  }

  /** Ctrl-C: cancels the running turn, or ends the chat at the prompt. */
  interrupt(): void {
    const turn = this.#turn;
    if (!turn) {
      this.#options.reader.end({ discard: true });
      return;
    }
    if (turn.cancel) {
      this.#options.renderer.line('Still stopping…');
      return;
    }
    turn.cancel = this.#cancel(turn);
  }

  async #runTurn(prompt: string): Promise<void> {
    const { client, agentSessionId, renderer } = this.#options;
    let end!: () => void;
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    const turn: ActiveTurn = {
      turnId: randomUUID(),
      ended,
      end,
      asking: undefined,
      dialogs: new AbortController(),
      interactions: Promise.resolve(),
      cancel: undefined,
    };
    this.#turn = turn;
    renderer.beginTurn(turn.turnId);
    try {
      await client.request('exec', { agentSessionId, turnId: turn.turnId, prompt });
      await turn.ended;
    } catch (error) {
      renderer.line(`could not send the message: ${errorText(error)}`);
    } finally {
      turn.dialogs.abort();
      await turn.interactions;
      await turn.cancel;
      this.#turn = undefined;
    }
  }

  #onEvent(event: SidecarEvent): void {
    this.#options.renderer.render(event);
    const turn = this.#turn;
    if (!turn || !('turnId' in event.payload) || event.payload.turnId !== turn.turnId) return;
    if (isTurnTerminalEventType(event.type)) {
      turn.end();
    } else if (event.type === 'approval_requested' || event.type === 'user_input_requested') {
      const { payload } = event;
      const dialog = event.type === 'approval_requested' ? approvalDialog(payload) : userInputDialog(payload);
      const kind = event.type === 'approval_requested' ? 'approval' : 'answer';
      turn.interactions = turn.interactions.then(() => this.#ask(turn, payload, dialog, kind));
    }
  }

  async #ask(
    turn: ActiveTurn,
    request: InteractionRequested,
    dialog: InteractionDialog,
    kind: OpenDialog,
  ): Promise<void> {
    const { reader, renderer } = this.#options;
    const answers: string[] = [];
    for (const step of dialog.steps) {
      for (const line of step.lines) renderer.line(line);
      for (;;) {
        if (turn.dialogs.signal.aborted) return;
        this.#options.showPrompt(step.prompt, 'answer');
        turn.asking = { kind, prompt: step.prompt };
        const typed = await reader.next(turn.dialogs.signal, { fresh: this.#options.interactive === true });
        turn.asking = undefined;
        if (turn.dialogs.signal.aborted) {
          this.#options.withdrawPrompt?.();
          return;
        }
        if (typed === undefined) {
          renderer.line('(no input left: declined)');
          return this.#submit(turn, request, DECLINED);
        }
        const reading = step.read(typed);
        if ('retry' in reading) {
          // Never ask again without a word: say what the step takes.
          renderer.line([styled('yellow', reading.retry)]);
          continue;
        }
        // Enter leaves nothing on screen, so the choice is said (for piped input it is the only record).
        renderer.line([styled('dim', `→ ${reading.chosen}`)]);
        answers.push(reading.answer);
        break;
      }
    }
    await this.#submit(turn, request, dialog.submission(answers));
  }

  async #submit(turn: ActiveTurn, request: InteractionRequested, answer: InteractionAnswer): Promise<void> {
    const { client, agentSessionId, renderer } = this.#options;
    try {
      const result = await client.request<InteractiveResult>('submit_interactive', {
        agentSessionId,
        turnId: turn.turnId,
        requestId: request.requestId,
        ...answer,
      });
      if (result.disposition !== 'answered') renderer.line(NOT_APPLIED[result.disposition]);
    } catch (error) {
      renderer.line(`could not send the answer: ${errorText(error)}`);
    }
  }

  async #cancel(turn: ActiveTurn): Promise<void> {
    const { client, agentSessionId, renderer } = this.#options;
    // The question is moot once the turn is being stopped: its prompt would be drawn under every line.
    const asking = turn.asking;
    if (asking) this.#options.withdrawPrompt?.();
    renderer.line('Stopping…');
    let stopped = false;
    try {
      const result = await client.request<CancelResult>('cancel', {
        agentSessionId,
        turnId: turn.turnId,
        ...CANCEL_BUDGETS,
      });
      stopped = result.canceled;
      renderer.line(cancelOutcomeText(result, asking?.kind));
    } catch (error) {
      renderer.line(`Could not stop the turn: ${errorText(error)}`);
    }
    // Not stopped: the question still waits for its answer.
    if (!stopped && turn.asking) this.#options.showPrompt(turn.asking.prompt, 'answer');
  }
}

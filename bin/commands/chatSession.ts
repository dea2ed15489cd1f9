import { randomUUID } from 'node:crypto';
import {
  type CancelResult,
  type InteractionRequested,
  type InteractiveResult,
  isTurnTerminalEventType,
  type SidecarClient,
  type SidecarEvent,
} from '@outrigger/protocol';
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

/** The budgets a Ctrl-C cancel gives the sidecar to interrupt Claude Code and to drain its output. */
export const CANCEL_BUDGETS = { interruptTimeoutMs: 2_000, drainTimeoutMs: 2_000 } as const;

export const CHAT_HELP = [
  'Type a message and press Enter to send it to Claude Code.',
  '  /help   this help',
  '  /quit   close the session and exit (so do Ctrl-C at the prompt and Ctrl-D)',
  'Ctrl-C while Claude is working cancels the turn.',
];

export interface ChatSessionOptions {
  client: SidecarClient;
  agentSessionId: string;
  reader: LineReader;
  renderer: ChatRenderer;
  /** Shows an input prompt: for the next message, or for the answer to a question or approval. */
  showPrompt(prompt: string, purpose: 'message' | 'answer'): void;
  /**
   * A person types at a terminal, possibly ahead while a turn runs: such a line waits to be the next
   * message (and is shown when it is sent), and an answer is taken only from a line typed after its
   * question was shown. Piped input (false) answers in order whatever asks next.
   */
  interactive?: boolean;
}

interface ActiveTurn {
  readonly turnId: string;
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
      this.#options.renderer.line('still canceling…');
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
      turn.interactions = turn.interactions.then(() => this.#ask(turn, payload, dialog));
    }
  }

  async #ask(turn: ActiveTurn, request: InteractionRequested, dialog: InteractionDialog): Promise<void> {
    const { reader, renderer } = this.#options;
    const answers: string[] = [];
    for (const step of dialog.steps) {
      for (const line of step.lines) renderer.line(line);
      let answer: string | undefined;
      while (answer === undefined) {
        if (turn.dialogs.signal.aborted) return;
        this.#options.showPrompt(step.prompt, 'answer');
        const typed = await reader.next(turn.dialogs.signal, { fresh: this.#options.interactive === true });
        if (turn.dialogs.signal.aborted) return;
        if (typed === undefined) {
          renderer.line('(no input left: declined)');
          return this.#submit(turn, request, DECLINED);
        }
        answer = step.parse(typed);
      }
      answers.push(answer);
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
      if (result.disposition !== 'answered') renderer.line(`(answer not applied: ${result.disposition})`);
    } catch (error) {
      renderer.line(`could not send the answer: ${errorText(error)}`);
    }
  }

  async #cancel(turn: ActiveTurn): Promise<void> {
    const { client, agentSessionId, renderer } = this.#options;
    renderer.line('canceling…');
    try {
      const result = await client.request<CancelResult>('cancel', {
        agentSessionId,
        turnId: turn.turnId,
        ...CANCEL_BUDGETS,
      });
      renderer.line(
        `cancel: ${result.canceled ? 'canceled' : 'nothing to cancel'} (${result.disposition}, ${result.dispatchPhase})`,
      );
    } catch (error) {
      renderer.line(`cancel failed: ${errorText(error)}`);
    }
  }
}

import type { SidecarEvent } from '@outrigger/protocol';

export interface ToolTimeoutHit {
  readonly turnId: string;
  readonly toolUseId: string;
  readonly toolName: string;
  readonly elapsedSeconds: number;
}

interface Watched {
  readonly turnId: string;
  readonly toolName: string;
  readonly startedAt: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * The host's optional `--tool-timeout`: a tool call still running `limitMs` after it started is
 * reported once (`onTimeout`), and the host then cancels its turn. Time spent waiting for a person
 * (an approval of that call) does not count; a question or plan (`interactive` calls) and a delegated
 * Agent task (which runs in the background by design) are never timed.
 */
export class ToolTimeouts {
  readonly #limitMs: number;
  readonly #onTimeout: (hit: ToolTimeoutHit) => void;
  readonly #now: () => number;
  readonly #watched = new Map<string, Watched>();
  /** Approval request id → the tool call it paused. */
  readonly #paused = new Map<string, string>();

  constructor(options: { limitMs: number; onTimeout: (hit: ToolTimeoutHit) => void; now?: () => number }) {
    this.#limitMs = options.limitMs;
    this.#onTimeout = options.onTimeout;
    this.#now = options.now ?? Date.now;
  }

  observe(event: SidecarEvent): void {
    switch (event.type) {
      case 'tool_started': {
        const tool = event.payload;
        if (tool.callType === 'interactive' || tool.callType === 'subagent' || this.#watched.has(tool.toolCallId))
          return;
        const watched: Watched = {
          turnId: tool.turnId,
          toolName: tool.toolName,
          startedAt: this.#now(),
          timer: undefined,
        };
        this.#watched.set(tool.toolCallId, watched);
        this.#arm(tool.toolCallId, watched, this.#limitMs);
        return;
      }
      case 'tool_updated':
        if (event.payload.metadata.backgroundProcess !== undefined) this.#forget(event.payload.toolCallId);
        return;
      case 'tool_completed':
      case 'tool_failed':
        this.#forget(event.payload.toolCallId);
        return;
      case 'approval_requested': {
        const watched = this.#watched.get(event.payload.toolCallId);
        if (watched !== undefined) {
          clearTimeout(watched.timer);
          watched.timer = undefined;
          this.#paused.set(event.payload.requestId, event.payload.toolCallId);
        }
        return;
      }
      case 'approval_resolved': {
        const toolUseId = this.#paused.get(event.payload.requestId);
        this.#paused.delete(event.payload.requestId);
        const watched = toolUseId === undefined ? undefined : this.#watched.get(toolUseId);
        // The clock starts over once the person answered: waiting for them is not the tool running.
        if (toolUseId !== undefined && watched !== undefined && watched.timer === undefined) {
          this.#arm(toolUseId, watched, this.#limitMs);
        }
        return;
      }
      case 'turn_completed':
      case 'turn_failed':
      case 'turn_canceled':
        for (const [id, watched] of this.#watched) if (watched.turnId === event.payload.turnId) this.#forget(id);
        return;
      default:
        return;
    }
  }

  clear(): void {
    for (const id of [...this.#watched.keys()]) this.#forget(id);
    this.#paused.clear();
  }

  #arm(toolUseId: string, watched: Watched, afterMs: number): void {
    watched.timer = setTimeout(() => {
      this.#watched.delete(toolUseId);
      this.#onTimeout({
        turnId: watched.turnId,
        toolUseId,
        toolName: watched.toolName,
        elapsedSeconds: (this.#now() - watched.startedAt) / 1000,
      });
    }, afterMs);
    watched.timer.unref();
  }

  #forget(toolUseId: string): void {
    const watched = this.#watched.get(toolUseId);
    if (watched === undefined) return;
    clearTimeout(watched.timer);
    this.#watched.delete(toolUseId);
  }
}

import type {
  BackgroundTask,
  Interaction,
  MessageView,
  QueuedPrompt,
  SessionDetail,
  Task,
  TurnView,
} from '@outrigger/host-api';

/** A turn as the view knows it: the host's turn row plus what its `result` and `turn_canceled` said. */
export interface TurnState extends TurnView {
  durationMs: number | null;
  cancelReason: string | null;
}

/** An `error` event of the session that did not end a turn; the user can dismiss it. */
export interface SessionNotice {
  seq: number;
  turnId: string | null;
  code: string;
  message: string;
}

/**
 * Everything one session's screen shows, folded from the snapshot and the stream by `sessionReducer`.
 * `lastSeq` is the watermark: an event at or below it was applied already (a duplicate or a replay).
 */
export interface SessionViewState {
  sessionId: string;
  /** Null until the snapshot arrived. */
  session: SessionDetail | null;
  lastSeq: number;
  rows: Readonly<Record<string, MessageView>>;
  /** Row ids in transcript order. */
  order: readonly string[];
  /** Older rows exist on the host (`GET messages?before=`). */
  hasOlder: boolean;
  turns: Readonly<Record<string, TurnState>>;
  /** By `requestId`: pending ones and those resolved while this view watched. */
  interactions: Readonly<Record<string, Interaction>>;
  tasks: readonly Task[];
  queuedPrompts: readonly QueuedPrompt[];
  backgroundTasks: readonly BackgroundTask[];
  notices: readonly SessionNotice[];
  /** Turns whose model stream has been silent, by turn id (cleared by the turn's next output or end). */
  stalls: Readonly<Record<string, number>>;
  /** Tool calls that ran past the host's tool time-out, by `tool_use_id`: seconds elapsed. */
  toolTimeouts: Readonly<Record<string, number>>;
}

export function emptySessionState(sessionId: string): SessionViewState {
  return {
    sessionId,
    session: null,
    lastSeq: 0,
    rows: {},
    order: [],
    hasOlder: false,
    turns: {},
    interactions: {},
    tasks: [],
    queuedPrompts: [],
    backgroundTasks: [],
    notices: [],
    stalls: {},
    toolTimeouts: {},
  };
}

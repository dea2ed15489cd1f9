import type {
  ApplySettingsPayload,
  CancelPayload,
  CancelResult,
  EmitEvent,
  ExecPayload,
  GuidePayload,
  InteractiveDispositionPayload,
  InteractiveResult,
  StartPayload,
  StartResult,
  StopTaskPayload,
  StopTaskResult,
  SubmitInteractivePayload,
} from '@outrigger/protocol';

/** Per-request facts a session may need for diagnostics. */
export interface RequestContext {
  requestId: string | undefined;
}

/** One Agent Session as the server drives it; the SDK runtime and the test driver both implement it. */
export interface SidecarSession {
  start(): Promise<StartResult>;
  exec(payload: ExecPayload): Promise<void>;
  guide(payload: GuidePayload): Promise<void>;
  /**
   * A cancel for this session arrived; called at once, before the cancel waits its turn behind the
   * session's earlier requests, so a slow earlier request (a guide waiting for its interrupt) can give way.
   */
  cancelRequested?(payload: CancelPayload): void;
  cancel(payload: CancelPayload, context: RequestContext): Promise<CancelResult>;
  stopTask(payload: StopTaskPayload): Promise<StopTaskResult>;
  submitInteractive(payload: SubmitInteractivePayload): Promise<InteractiveResult>;
  interactiveDisposition(payload: InteractiveDispositionPayload): Promise<InteractiveResult>;
  applySettings(payload: ApplySettingsPayload): Promise<void>;
  /** Permanent: the session never runs again. */
  close(): Promise<void>;
}

/** Builds the session a `start` request asks for; it publishes its events through `emit`. */
export type SessionFactory = (payload: StartPayload, emit: EmitEvent) => SidecarSession;

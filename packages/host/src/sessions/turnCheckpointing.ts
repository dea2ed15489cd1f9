import { checkpointFailure, type SessionCheckpoints } from '../checkpoints/sessionCheckpoints.ts';
import type { RuntimeLogger } from '../logging/runtimeLogger.ts';
import { failureName } from '../sidecar/sidecarFailure.ts';
import type { SessionLedger } from './sessionLedger.ts';

/**
 * A session's checkpoints at the edges of its user turns: a snapshot before a turn's `exec`, and one once that
 * turn no longer runs (it ended, however). A checkpoint that fails (git missing, a damaged shadow repository)
 * is said on the turn as a `checkpoint` event with its error; the turn goes on. Runs on the session's queue.
 */
export class TurnCheckpointing {
  readonly #sessionId: string;
  readonly #ledger: Pick<SessionLedger, 'apply' | 'runningUserTurn'>;
  readonly #checkpoints: Pick<SessionCheckpoints, 'record'> | undefined;
  readonly #logger: RuntimeLogger;
  /** The user turn whose start checkpoint is taken and whose end checkpoint is not yet. */
  #open: string | undefined;

  constructor(
    sessionId: string,
    ledger: Pick<SessionLedger, 'apply' | 'runningUserTurn'>,
    checkpoints: Pick<SessionCheckpoints, 'record'> | undefined,
    logger: RuntimeLogger,
  ) {
    this.#sessionId = sessionId;
    this.#ledger = ledger;
    this.#checkpoints = checkpoints;
    this.#logger = logger;
  }

  async turnStarts(turnId: string): Promise<void> {
    if (this.#checkpoints === undefined) return;
    this.#open = turnId;
    await this.#record(turnId, 'start');
  }

  /** After a restart: the turn a previous run left running took its start checkpoint there. */
  adoptRunningTurn(): void {
    this.#open = this.#ledger.runningUserTurn()?.id;
  }

  /** Once the checkpointed turn no longer runs, its end checkpoint. */
  async endOfEndedTurn(): Promise<void> {
    const turnId = this.#open;
    if (turnId === undefined || this.#ledger.runningUserTurn()?.id === turnId) return;
    this.#open = undefined;
    await this.#record(turnId, 'end');
  }

  async #record(turnId: string, edge: 'start' | 'end'): Promise<void> {
    const checkpoints = this.#checkpoints;
    if (checkpoints === undefined) return;
    try {
      const recorded = await checkpoints.record(turnId, edge);
      if (recorded === undefined) return;
      await this.#ledger.apply({ type: 'checkpointRecorded', turnId, ...recorded, error: null });
    } catch (error) {
      this.#logger.warn(
        { event: 'session.checkpoint_failed', sessionId: this.#sessionId, turnId, edge, errorName: failureName(error) },
        'a checkpoint of the working directory failed; the turn goes on',
      );
      await this.#ledger
        .apply({
          type: 'checkpointRecorded',
          turnId,
          checkpoint: null,
          filesChanged: null,
          error: checkpointFailure(error),
        })
        .catch((commitError: unknown) =>
          this.#logger.error(
            {
              event: 'session.task_failed',
              sessionId: this.#sessionId,
              stage: 'record a failed checkpoint',
              errorName: failureName(commitError),
            },
            'a session task failed',
          ),
        );
    }
  }
}

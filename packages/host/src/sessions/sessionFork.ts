import type { ForkSessionBody } from '@outrigger/host-api';
import { HostError } from '../hostError.ts';
import type { NewForkInit } from '../projection/projectedSessionLedger.ts';
import { isTerminalTurn } from '../projection/sessionStatus.ts';
import { classifySidecarFailure } from '../sidecar/sidecarFailure.ts';
import type { SidecarSupervisor } from '../sidecar/sidecarSupervisor.ts';
import type { SessionRecord, TurnRecord } from '../store/records.ts';

const FORK_TIMEOUT_MS = 120_000;

/** A turn a session can be forked at: it ended, and Claude accepted it (it has a provider turn). */
export function forkPoint(turn: TurnRecord | undefined): TurnRecord & { providerTurnId: string } {
  if (turn === undefined) throw new HostError('not_found', 'no such turn');
  if (!isTerminalTurn(turn)) throw new HostError('conflict', 'a session can be forked only at a turn that has ended');
  if (turn.providerTurnId === null) {
    throw new HostError('conflict', 'Claude never accepted this turn, so there is nothing to fork at');
  }
  return turn as TurnRecord & { providerTurnId: string };
}

/**
 * Copies the source's Claude Code transcript up to `turn` in the sidecar, and says what the child's ledger
 * starts from: its bindings, one per provider turn of the copy, with the source's own provider turn ids in
 * the same order (guide prompts included, which the host keeps no turn for), so each copied turn takes the
 * binding of its own provider turn.
 */
export async function forkTranscript(
  supervisor: Pick<SidecarSupervisor, 'ensure' | 'request'>,
  source: SessionRecord,
  turn: TurnRecord & { providerTurnId: string },
  body: ForkSessionBody,
  id: string,
): Promise<NewForkInit> {
  const generation = await supervisor.ensure().catch((error: unknown) => {
    throw sidecarUnavailable('start the sidecar', error);
  });
  const providerSessionId = turn.providerSessionId ?? source.providerSessionId;
  const { providerTurnIds: sourceProviderTurnIds } = await supervisor
    .request(
      generation,
      'inspect_fork_checkpoints',
      { providerSessionId, cwd: source.cwd },
      { timeoutMs: FORK_TIMEOUT_MS },
    )
    .catch((error: unknown) => {
      throw sidecarUnavailable('read the source transcript to fork it', error);
    });
  const fork = await supervisor
    .request(
      generation,
      'fork_session',
      {
        providerSessionId,
        providerTurnId: turn.providerTurnId,
        providerCheckpointMessageId: turn.checkpointMessageId ?? '',
        cwd: source.cwd,
        title: body.title ?? '',
      },
      { timeoutMs: FORK_TIMEOUT_MS },
    )
    .catch((error: unknown) => {
      const failure = classifySidecarFailure(error);
      if (failure.kind === 'refused' && failure.deliveryDisposition === 'not_started') {
        throw new HostError('conflict', `the session could not be forked at that turn: ${failure.message}`);
      }
      throw sidecarUnavailable('fork the session', error);
    });
  return {
    id,
    cwd: source.cwd,
    title: body.title ?? `${source.title} (fork)`,
    settings: source.settings,
    providerSessionId: fork.providerSessionId,
    forkedFrom: { sessionId: source.id, turnId: turn.id },
    bindings: fork.targetProviderTurnBindings,
    sourceProviderTurnIds,
    resumeCursor: {
      kind: 'claude-agent-sdk',
      version: 1,
      resume: fork.providerSessionId,
      turnCount: fork.targetProviderTurnBindings.length,
    },
    configOptions: source.configOptions,
    slashCommands: source.slashCommands,
  };
}

/** The sidecar could not do `what`: a 503 that says so (a HostError it threw itself passes as it is). */
export function sidecarUnavailable(what: string, error: unknown): HostError {
  if (error instanceof HostError) return error;
  const reason = error instanceof Error ? `: ${error.message}` : '';
  return new HostError('sidecar_unavailable', `could not ${what}${reason}`);
}

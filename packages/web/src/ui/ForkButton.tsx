import { useAction } from './hooks.ts';
import { Icon } from './Icon.tsx';

/** Starts a new session from a finished turn; says why when the host refuses. */
export function ForkButton({
  turnId,
  fork,
  label = 'Fork from here',
  className = 'btn btn-ghost btn-small',
}: {
  turnId: string;
  fork: (turnId: string) => Promise<void>;
  label?: string;
  className?: string;
}) {
  const { busy: forking, error, run } = useAction();
  return (
    <>
      {error !== null && (
        <span className="composer-error" role="alert">
          Could not fork: {error}
        </span>
      )}
      <button
        type="button"
        className={className}
        disabled={forking}
        onClick={() => run(() => fork(turnId))}
        // The visible words are the name (voice control says what it sees); the title says what it does.
        title="Start a new session from this turn"
      >
        <Icon name="fork" /> {forking ? 'Forking…' : label}
      </button>
    </>
  );
}

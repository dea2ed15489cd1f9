import { useState } from 'react';
import { Icon } from './Icon.tsx';
import { useReview } from './reviewContext.ts';

/**
 * Opens the rewind of a user turn. While it must wait (a turn runs, prompts are queued) it stays focusable
 * and says why when pressed, rather than greying out without a word.
 */
export function RewindButton({ turnId }: { turnId: string }) {
  const review = useReview();
  const [why, setWhy] = useState(false);
  const blocked = review.blockedReason;
  return (
    <>
      {why && blocked !== null && (
        <span className="small muted" role="status">
          {blocked}
        </span>
      )}
      <button
        type="button"
        className="btn btn-ghost btn-small"
        aria-disabled={blocked !== null}
        title={blocked ?? 'Take the files, the conversation or both back to before this turn'}
        onClick={() => {
          if (blocked !== null) setWhy(true);
          else review.openRewind(turnId);
        }}
        onBlur={() => setWhy(false)}
      >
        <Icon name="rewind" /> Rewind…
      </button>
    </>
  );
}

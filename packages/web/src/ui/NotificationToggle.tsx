import { useEffect, useId, useState } from 'react';
import { type NotificationState, notificationAdvice, notificationState } from '../data/attentionEvents.ts';
import { Icon } from './Icon.tsx';
import './composerControls.css';

/**
 * "Notify me": asks the browser once; when it refuses (or cannot), says so and how to allow them, instead of a
 * button that does nothing. Once allowed it says what will be notified.
 */
export function NotificationToggle() {
  const [state, setState] = useState<NotificationState>(notificationState);
  const [asked, setAsked] = useState(false);
  const adviceId = useId();
  // A permission changed in the site settings shows when the person comes back to the tab.
  useEffect(() => {
    const refresh = () => setState(notificationState());
    document.addEventListener('visibilitychange', refresh);
    return () => document.removeEventListener('visibilitychange', refresh);
  }, []);
  const advice = notificationAdvice(state, asked);
  if (state === 'granted') {
    return (
      <span className="notify-help" role="status">
        <Icon name="bell" /> Notifications on: a session that needs you, or a turn that ends while this tab is hidden.
      </span>
    );
  }
  return (
    <span className="notify">
      {state === 'default' && (
        <button
          type="button"
          className="btn btn-small"
          aria-describedby={advice === null ? undefined : adviceId}
          onClick={() => {
            void Notification.requestPermission().then(
              (answer) => {
                setAsked(true);
                setState(answer);
              },
              () => {
                setAsked(true);
                setState(notificationState());
              },
            );
          }}
        >
          <Icon name="bell" /> Notify me
        </button>
      )}
      {advice !== null && (
        <span className="notify-help" id={adviceId} role="status">
          {state === 'default' ? null : <strong>Notifications are off. </strong>}
          {advice}
        </span>
      )}
    </span>
  );
}

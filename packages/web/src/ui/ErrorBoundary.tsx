import { Component, type ErrorInfo, type ReactNode } from 'react';
import { Icon } from './Icon.tsx';

/**
 * A view that throws shows what happened and a way on, instead of a blank page; the rest of the app
 * (the sidebar, other sessions) keeps working. `resetKey` clears it when the person moves elsewhere.
 */
export class ErrorBoundary extends Component<{ children: ReactNode; resetKey: string }, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override componentDidUpdate(previous: { resetKey: string }) {
    if (previous.resetKey !== this.props.resetKey && this.state.error !== null) this.setState({ error: null });
  }

  override componentDidCatch(error: Error, info: ErrorInfo) {
    console.error('outrigger: a view failed', error, info.componentStack);
  }

  override render() {
    if (this.state.error === null) return this.props.children;
    return (
      <div className="empty" role="alert">
        <h2>
          <Icon name="alert" /> This view failed to render
        </h2>
        <p>{this.state.error.message}</p>
        <p className="small">Nothing was lost: the host keeps the session. Reloading the page rebuilds it.</p>
        <button type="button" className="btn" onClick={() => window.location.reload()}>
          <Icon name="refresh" /> Reload
        </button>
      </div>
    );
  }
}

import type { HistoryReads, HostService, SessionService } from '../service/hostService.ts';

/**
 * The host's service: the session manager's routes and the history's reads side by side, so the history stays
 * out of the manager. Every session route is the manager's own method (bound to it); `close` closes the history
 * first (its watch, and a refresh that may still write to the store), then the manager, which closes the store.
 */
export function hostServiceWithHistory(
  sessions: SessionService,
  history: HistoryReads & { close(): Promise<void> },
): HostService {
  const reads: HistoryReads & Pick<HostService, 'close'> = {
    listHistory: (query) => history.listHistory(query),
    getHistoryMessages: (claudeSessionId, query) => history.getHistoryMessages(claudeSessionId, query),
    openHistoryStream: () => history.openHistoryStream(),
    close: async () => {
      await history.close();
      await sessions.close();
    },
  };
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(sessions as HostService, {
    get(target, key) {
      if (Object.hasOwn(reads, key)) return reads[key as keyof typeof reads];
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      // The manager's methods use its private fields: `this` must be the manager, not the proxy.
      let method = bound.get(key);
      if (method === undefined) {
        method = value.bind(target);
        bound.set(key, method);
      }
      return method;
    },
  });
}

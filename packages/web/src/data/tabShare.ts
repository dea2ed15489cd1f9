import type { ConnectionState, StreamFrame } from './streamConnection.ts';

/**
 * What the tabs of one host share so that they hold ONE host stream between them. A browser opens at
 * most six HTTP/1.1 connections to a host, and each tab used to hold two streams (the host's and its
 * session's): a third tab left no connection for any request, so every click hung. One tab (the one
 * holding the lock) follows the host stream and posts each frame to the others.
 */
export type ShareMessage =
  /** A host stream frame the leading tab received. */
  | { readonly kind: 'frame'; readonly frame: StreamFrame }
  /** The leading tab's connection state. */
  | { readonly kind: 'state'; readonly state: ConnectionState }
  /** A tab started following: the leader answers with its state. */
  | { readonly kind: 'hello' }
  /** A following tab came back (online, visible): the leader reconnects at once. */
  | { readonly kind: 'wake' };

export interface TabShare {
  /** To every other tab (never to this one). */
  post(message: ShareMessage): void;
  /** What the other tabs post; returns the unsubscribe. */
  listen(receive: (message: ShareMessage) => void): () => void;
  /**
   * Waits until this tab holds the lock, then runs `lead` and holds the lock until it settles. An
   * abort gives up waiting (resolving); `lead` itself must settle once `signal` aborts.
   */
  lead(signal: AbortSignal, lead: () => Promise<void>): Promise<void>;
}

/** BroadcastChannel + Web Locks under `name`; undefined where the browser has either missing. */
export function browserTabShare(name: string): TabShare | undefined {
  if (typeof BroadcastChannel === 'undefined' || typeof navigator === 'undefined' || navigator.locks === undefined)
    return undefined;
  const channel = new BroadcastChannel(name);
  return {
    post: (message) => channel.postMessage(message),
    listen: (receive) => {
      const onMessage = (event: MessageEvent<ShareMessage>) => receive(event.data);
      channel.addEventListener('message', onMessage);
      return () => channel.removeEventListener('message', onMessage);
    },
    lead: async (signal, lead) => {
      try {
        await navigator.locks.request(name, { signal }, () => lead());
      } catch (error) {
        if (!signal.aborted) throw error;
      }
    },
  };
}

import { useEffect, useState, useSyncExternalStore } from 'react';
import { messageOf } from '../data/format.ts';
import type { ValueStore } from '../data/valueStore.ts';

/** The current value of a data-layer store; re-renders when it changes. */
export function useValue<T>(store: ValueStore<T>): T {
  return useSyncExternalStore(store.subscribe, store.get, store.get);
}

/** A clock that ticks every `intervalMs` while `active` (elapsed times of running work). */
export function useNow(active: boolean, intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [active, intervalMs]);
  return now;
}

/**
 * Work a click starts: `busy` while it runs (to disable the button), then the error in words if it
 * failed, cleared by the next try.
 */
export function useAction(describe: (error: unknown) => string = messageOf): {
  busy: boolean;
  error: string | null;
  run(work: () => Promise<unknown>): void;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    work().then(
      () => setBusy(false),
      (e: unknown) => {
        setBusy(false);
        setError(describe(e));
      },
    );
  };
  return { busy, error, run };
}

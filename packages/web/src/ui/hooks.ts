import { useEffect, useState, useSyncExternalStore } from 'react';
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

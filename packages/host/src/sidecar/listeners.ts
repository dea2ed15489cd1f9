/** Adds `listener` to `listeners`; the returned function removes it again. */
export function subscribe<T>(listeners: Set<T>, listener: T): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

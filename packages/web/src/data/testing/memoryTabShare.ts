import type { ShareMessage, TabShare } from '../tabShare.ts';

/**
 * Tabs in one process: `tab()` gives each its `TabShare`. Posts reach every other tab a moment later,
 * in order (as a BroadcastChannel's do); the lock goes to the waiting tabs in turn.
 */
export class MemoryTabShares {
  readonly #listeners = new Set<{ owner: object; receive: (message: ShareMessage) => void }>();
  readonly #waiting: { grant: () => void }[] = [];
  #held = false;

  tab(): TabShare {
    const owner = {};
    return {
      post: (message) => {
        const targets = [...this.#listeners].filter((listener) => listener.owner !== owner);
        queueMicrotask(() => {
          for (const target of targets) target.receive(message);
        });
      },
      listen: (receive) => {
        const listener = { owner, receive };
        this.#listeners.add(listener);
        return () => this.#listeners.delete(listener);
      },
      lead: async (signal, lead) => {
        if (signal.aborted) return;
        const granted = await new Promise<boolean>((resolve) => {
          const entry = { grant: () => resolve(true) };
          signal.addEventListener('abort', () => {
            const index = this.#waiting.indexOf(entry);
            if (index === -1) return;
            this.#waiting.splice(index, 1);
            resolve(false);
          });
          this.#waiting.push(entry);
          this.#grant();
        });
        if (!granted) return;
        try {
          await lead();
        } finally {
          this.#held = false;
          this.#grant();
        }
      },
    };
  }

  #grant(): void {
    if (this.#held) return;
    const next = this.#waiting.shift();
    if (next === undefined) return;
    this.#held = true;
    next.grant();
  }
}

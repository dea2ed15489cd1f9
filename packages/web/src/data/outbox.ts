import { HostApiError, type PostTurnBody, type PostTurnResponse } from '@outrigger/host-api';
import type { DraftStorage } from './drafts.ts';
import { messageOf } from './format.ts';
import { defaultBackoffMs, realTimers, type Timers } from './streamConnection.ts';
import { ValueStore } from './valueStore.ts';

/**
 * A prompt on its way to the host. `sending`: a POST is in flight. `waiting`: the last attempt failed
 * on the network or a 5xx and the next one will carry the same `clientMessageId`, so the host starts
 * the turn at most once. `accepted`: the host answered; the item stays until the session's stream
 * shows the prompt, so there is never a gap and never a second bubble. `failed`: the host refused it
 * (4xx) or we gave up; the text is kept for the person to retry or edit.
 */
export interface OutgoingPrompt {
  clientMessageId: string;
  sessionId: string;
  body: PostTurnBody & { clientMessageId: string };
  state: 'sending' | 'waiting' | 'accepted' | 'failed';
  attempts: number;
  error: string | null;
  response: PostTurnResponse | null;
}

export interface OutboxOptions {
  post(sessionId: string, body: PostTurnBody): Promise<PostTurnResponse>;
  newId?(): string;
  timers?: Timers;
  /** Attempts before an item is `failed` (the person can still retry it). */
  maxAttempts?: number;
  /** Where unsent prompts survive a reload (`localStorage`); `resume()` sends them on, same ids. */
  storage?: DraftStorage;
}

const storageKey = 'outrigger.outbox';

export class Outbox {
  readonly items = new ValueStore<readonly OutgoingPrompt[]>([]);
  readonly #options: OutboxOptions;
  readonly #timers: Timers;

  constructor(options: OutboxOptions) {
    this.#options = options;
    this.#timers = options.timers ?? realTimers;
    this.items.set(this.#load());
    this.items.subscribe(() => this.#save());
  }

  /** Sends on what a previous page left unsent (a reload while offline); failed ones wait for the person. */
  resume(): void {
    for (const item of this.items.get())
      if (item.state === 'sending' || item.state === 'waiting') void this.#attempt(item.clientMessageId);
  }

  /** Sends a prompt once; resolves with the host's answer, or null when it failed (see the item). */
  send(sessionId: string, body: Omit<PostTurnBody, 'clientMessageId'>): Promise<PostTurnResponse | null> {
    const clientMessageId = (this.#options.newId ?? (() => crypto.randomUUID()))();
    const item: OutgoingPrompt = {
      clientMessageId,
      sessionId,
      body: { ...body, clientMessageId },
      state: 'sending',
      attempts: 0,
      error: null,
      response: null,
    };
    this.items.update((items) => [...items, item]);
    return this.#attempt(clientMessageId);
  }

  /** Tries a failed item again, with its same id. */
  retry(clientMessageId: string): Promise<PostTurnResponse | null> {
    this.#patch(clientMessageId, { state: 'sending', attempts: 0, error: null });
    return this.#attempt(clientMessageId);
  }

  /** Drops an item: the stream shows its prompt now, or the person discarded a failed one. */
  forget(clientMessageId: string): void {
    this.items.update((items) => items.filter((item) => item.clientMessageId !== clientMessageId));
  }

  async #attempt(clientMessageId: string): Promise<PostTurnResponse | null> {
    const maxAttempts = this.#options.maxAttempts ?? 8;
    while (true) {
      const item = this.items.get().find((candidate) => candidate.clientMessageId === clientMessageId);
      if (item === undefined) return null;
      this.#patch(clientMessageId, { state: 'sending', attempts: item.attempts + 1 });
      try {
        const response = await this.#options.post(item.sessionId, item.body);
        this.#patch(clientMessageId, { state: 'accepted', response, error: null });
        return response;
      } catch (error) {
        const message = describeSendError(error);
        if (!isRetryable(error) || item.attempts + 1 >= maxAttempts) {
          this.#patch(clientMessageId, { state: 'failed', error: message });
          return null;
        }
        this.#patch(clientMessageId, { state: 'waiting', error: message });
        await new Promise<void>((resolve) => this.#timers.setTimeout(resolve, defaultBackoffMs(item.attempts + 1)));
      }
    }
  }

  #load(): OutgoingPrompt[] {
    try {
      const stored = JSON.parse(this.#options.storage?.getItem(storageKey) ?? '[]') as OutgoingPrompt[];
      return Array.isArray(stored) ? stored.map((item) => ({ ...item, attempts: 0 })) : [];
    } catch {
      return [];
    }
  }

  #save(): void {
    const unsent = this.items.get().filter((item) => item.state !== 'accepted');
    try {
      if (unsent.length === 0) this.#options.storage?.removeItem(storageKey);
      else this.#options.storage?.setItem(storageKey, JSON.stringify(unsent));
    } catch {
      // Too big for the storage (images): it is still sent from this page.
    }
  }

  #patch(clientMessageId: string, change: Partial<OutgoingPrompt>): void {
    this.items.update((items) =>
      items.map((item) => (item.clientMessageId === clientMessageId ? { ...item, ...change } : item)),
    );
  }
}

/** A network failure or a 5xx may not have reached the host, or reached it: retry with the same id. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof HostApiError) return error.status >= 500;
  return error instanceof TypeError;
}

export function describeSendError(error: unknown): string {
  if (error instanceof HostApiError) return error.message;
  if (error instanceof TypeError) return 'The host could not be reached; retrying.';
  return messageOf(error);
}

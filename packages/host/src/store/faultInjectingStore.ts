import type { HostStore, SdkTaskSyncResult, WriteUnit } from './hostStore.ts';
import { StoreError } from './storeError.ts';

/**
 * How an injected write failure looks to the caller. `reject`: the store refuses it and keeps
 * nothing (a full disk, a constraint). `lose_ack`: the store keeps it but the caller is told it
 * failed (a connection lost at COMMIT, as a PostgreSQL store can see): the caller must not assume
 * either outcome, and a reload from the store shows the truth.
 */
export type WriteFault = 'reject' | 'lose_ack';

interface PlannedFault {
  readonly write: number;
  readonly fault: WriteFault;
}

/**
 * A `HostStore` that delegates to another and fails chosen writes: `failWrite(n)` makes the n-th
 * write from now (1 = the next one) fail. Each `commit`, `commitMany` and `syncSdkTasks` call is one
 * write. Reads always pass. For the fault tests of the store, the runtime and issue 11.
 */
export class FaultInjectingStore implements HostStore {
  readonly #inner: HostStore;
  #writes = 0;
  #planned: PlannedFault[] = [];
  /** Writes that were failed on purpose, in order (1-based write numbers since creation). */
  readonly failedWrites: number[] = [];

  constructor(inner: HostStore) {
    this.#inner = inner;
  }

  /** The n-th write from now (1 = the next) fails with `fault`. */
  failWrite(n: number, fault: WriteFault = 'reject'): void {
    if (!Number.isInteger(n) || n < 1) throw new RangeError('failWrite needs a positive integer');
    this.#planned.push({ write: this.#writes + n, fault });
  }

  /** Every write from now on fails (a dead disk) until `heal()`. */
  failAllWrites(fault: WriteFault = 'reject'): void {
    this.#planned.push({ write: Number.POSITIVE_INFINITY, fault });
  }

  heal(): void {
    this.#planned = [];
  }

  /** Writes attempted so far (failed ones included). */
  get writeCount(): number {
    return this.#writes;
  }

  async #write<T>(run: () => Promise<T>): Promise<T> {
    this.#writes += 1;
    const write = this.#writes;
    const planned = this.#planned.find((entry) => entry.write === write || entry.write === Number.POSITIVE_INFINITY);
    if (planned === undefined) return run();
    if (planned.write !== Number.POSITIVE_INFINITY) this.#planned = this.#planned.filter((entry) => entry !== planned);
    this.failedWrites.push(write);
    if (planned.fault === 'lose_ack') await run();
    throw new StoreError(`injected write failure (${planned.fault}) at write ${write}`);
  }

  commit(unit: WriteUnit) {
    return this.#write(() => this.#inner.commit(unit));
  }

  commitMany(units: readonly WriteUnit[]) {
    return this.#write(() => this.#inner.commitMany(units));
  }

  syncSdkTasks(...args: Parameters<HostStore['syncSdkTasks']>): Promise<SdkTaskSyncResult> {
    return this.#write(() => this.#inner.syncSdkTasks(...args));
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  getSession: HostStore['getSession'] = (...args) => this.#inner.getSession(...args);
  listSessions: HostStore['listSessions'] = (...args) => this.#inner.listSessions(...args);
  getTurn: HostStore['getTurn'] = (...args) => this.#inner.getTurn(...args);
  listTurns: HostStore['listTurns'] = (...args) => this.#inner.listTurns(...args);
  findClientMessage: HostStore['findClientMessage'] = (...args) => this.#inner.findClientMessage(...args);
  listMessages: HostStore['listMessages'] = (...args) => this.#inner.listMessages(...args);
  listTurnMessages: HostStore['listTurnMessages'] = (...args) => this.#inner.listTurnMessages(...args);
  getMessage: HostStore['getMessage'] = (...args) => this.#inner.getMessage(...args);
  getToolMessage: HostStore['getToolMessage'] = (...args) => this.#inner.getToolMessage(...args);
  listTasks: HostStore['listTasks'] = (...args) => this.#inner.listTasks(...args);
  getTask: HostStore['getTask'] = (...args) => this.#inner.getTask(...args);
  listInteractions: HostStore['listInteractions'] = (...args) => this.#inner.listInteractions(...args);
  getInteraction: HostStore['getInteraction'] = (...args) => this.#inner.getInteraction(...args);
  getAttachment: HostStore['getAttachment'] = (...args) => this.#inner.getAttachment(...args);
  readSessionEvents: HostStore['readSessionEvents'] = (...args) => this.#inner.readSessionEvents(...args);
  readHostEvents: HostStore['readHostEvents'] = (...args) => this.#inner.readHostEvents(...args);
  lastSessionSeq: HostStore['lastSessionSeq'] = (...args) => this.#inner.lastSessionSeq(...args);
  lastHostSeq: HostStore['lastHostSeq'] = () => this.#inner.lastHostSeq();
  loadSessionSnapshot: HostStore['loadSessionSnapshot'] = (...args) => this.#inner.loadSessionSnapshot(...args);
  loadProjectionState: HostStore['loadProjectionState'] = (...args) => this.#inner.loadProjectionState(...args);
  loadSessionList: HostStore['loadSessionList'] = (...args) => this.#inner.loadSessionList(...args);
  loadInteractionList: HostStore['loadInteractionList'] = (...args) => this.#inner.loadInteractionList(...args);
}

import type { HostStore, WriteUnit } from './hostStore.ts';
import { SqliteHostStore, type SqliteHostStoreOptions } from './sqlite/sqliteHostStore.ts';
import { StoreError } from './storeError.ts';

/**
 * How an injected write failure looks to the caller. `reject`: the store refuses it and keeps
 * nothing (a full disk, a constraint). `lose_ack`: the store keeps it but the caller is told it
 * failed (a connection lost at COMMIT, as a PostgreSQL store can see): the caller must not assume
 * either outcome, and a reload from the store shows the truth. `at_commit`: the inner store applies
 * every statement of the write, seqs assigned and events built, and then its `COMMIT` throws, so it
 * rolls back and keeps nothing (only with `openFaultInjectingSqliteStore`, which can reach the COMMIT).
 */
export type WriteFault = 'reject' | 'lose_ack' | 'at_commit';

interface PlannedFault {
  readonly write: number;
  readonly fault: WriteFault;
}

/**
 * A `HostStore` that delegates to another and fails chosen writes: `failWrite(n)` makes the n-th
 * write from now (1 = the next one) fail. Each `commit` and `commitMany` call is one write. Reads
 * always pass. For the fault tests of the store, the runtime and issue 11.
 */
export class FaultInjectingStore implements HostStore {
  readonly #inner: HostStore;
  #writes = 0;
  #planned: PlannedFault[] = [];
  /** Writes that were failed on purpose, in order (1-based write numbers since creation). */
  readonly failedWrites: number[] = [];

  /** Whether the inner store sends its COMMIT through `#atCommit`, so `at_commit` faults can fire. */
  readonly #reachesCommit: boolean;
  /** Set for the one write whose COMMIT is to throw. */
  #failNextCommit = false;

  constructor(inner: HostStore, options: { readonly reachesCommit?: boolean } = {}) {
    this.#inner = inner;
    this.#reachesCommit = options.reachesCommit ?? false;
  }

  /** The n-th write from now (1 = the next) fails with `fault`. */
  failWrite(n: number, fault: WriteFault = 'reject'): void {
    if (!Number.isInteger(n) || n < 1) throw new RangeError('failWrite needs a positive integer');
    this.#assertCanFail(fault);
    this.#planned.push({ write: this.#writes + n, fault });
  }

  /** Every write from now on fails (a dead disk) until `heal()`. */
  failAllWrites(fault: WriteFault = 'reject'): void {
    this.#assertCanFail(fault);
    this.#planned.push({ write: Number.POSITIVE_INFINITY, fault });
  }

  /** The inner store's COMMIT: runs it, or throws in its place for a write planned to fail `at_commit`. */
  atCommit(commit: () => void): void {
    if (!this.#failNextCommit) {
      commit();
      return;
    }
    this.#failNextCommit = false;
    throw new Error('injected COMMIT failure');
  }

  #assertCanFail(fault: WriteFault): void {
    // Without the hook the write would commit for real and the test would pass for the wrong reason.
    if (fault === 'at_commit' && !this.#reachesCommit) {
      throw new Error('at_commit faults need a store from openFaultInjectingSqliteStore');
    }
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
    if (planned.fault === 'at_commit') {
      this.#failNextCommit = true;
      try {
        // The inner store's own refusal (its rollback done) is what the caller sees.
        await run();
      } finally {
        this.#failNextCommit = false;
      }
      throw new StoreError(`injected COMMIT failure at write ${write} did not fire`);
    }
    if (planned.fault === 'lose_ack') await run();
    throw new StoreError(`injected write failure (${planned.fault}) at write ${write}`);
  }

  commit(unit: WriteUnit) {
    return this.#write(() => this.#inner.commit(unit));
  }

  commitMany(units: readonly WriteUnit[]) {
    return this.#write(() => this.#inner.commitMany(units));
  }

  /** The history's index is a cache of files, not the host's record: its writes are not failed on purpose. */
  updateHistoryTranscripts: HostStore['updateHistoryTranscripts'] = (...args) =>
    this.#inner.updateHistoryTranscripts(...args);

  close(): Promise<void> {
    return this.#inner.close();
  }

  getSession: HostStore['getSession'] = (...args) => this.#inner.getSession(...args);
  listSessions: HostStore['listSessions'] = (...args) => this.#inner.listSessions(...args);
  searchSessions: HostStore['searchSessions'] = (...args) => this.#inner.searchSessions(...args);
  recentCwds: HostStore['recentCwds'] = (...args) => this.#inner.recentCwds(...args);
  findSessionByProviderSession: HostStore['findSessionByProviderSession'] = (...args) =>
    this.#inner.findSessionByProviderSession(...args);
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
  listHistoryTranscripts: HostStore['listHistoryTranscripts'] = () => this.#inner.listHistoryTranscripts();
  findHistoryTranscripts: HostStore['findHistoryTranscripts'] = (...args) =>
    this.#inner.findHistoryTranscripts(...args);
  listProviderSessionOwners: HostStore['listProviderSessionOwners'] = () => this.#inner.listProviderSessionOwners();
}

/** A `FaultInjectingStore` around a new SQLite store whose COMMIT it can fail (`at_commit`). */
export function openFaultInjectingSqliteStore(options: SqliteHostStoreOptions): FaultInjectingStore {
  let faults: FaultInjectingStore | undefined;
  const inner = SqliteHostStore.open({
    ...options,
    atCommit: (commit) => (faults === undefined ? commit() : faults.atCommit(commit)),
  });
  faults = new FaultInjectingStore(inner, { reachesCommit: true });
  return faults;
}

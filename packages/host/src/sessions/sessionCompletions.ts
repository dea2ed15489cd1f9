import { type FileCompletion, hostLimits, type ModelCatalogue, type SessionCommands } from '@outrigger/host-api';
import { completeFiles } from '../files/fileCompletion.ts';
import { HostError } from '../hostError.ts';
import type { HostStoreReader } from '../store/hostStore.ts';
import type { SessionRecord } from '../store/records.ts';
import { knownModels } from './knownModels.ts';

/** The session manager's collaborator for what the composer and the model picker offer (reads only). */
export class SessionCompletions {
  readonly #store: HostStoreReader;

  constructor(store: HostStoreReader) {
    this.#store = store;
  }

  async listModels(): Promise<ModelCatalogue> {
    return knownModels(await this.#store.listSessions({ includeClosed: true }));
  }

  async listCommands(sessionId: string): Promise<SessionCommands> {
    const session = await this.#sessionOf(sessionId);
    return { commands: session.slashCommands.map((command) => ({ ...command })) };
  }

  async completeFiles(sessionId: string, prefix: string): Promise<FileCompletion> {
    const session = await this.#sessionOf(sessionId);
    return completeFiles(session.cwd, prefix, { limit: hostLimits.fileCompletionsMax });
  }

  async #sessionOf(sessionId: string): Promise<SessionRecord> {
    const session = await this.#store.getSession(sessionId);
    if (session === undefined) throw new HostError('not_found', 'no such session');
    return session;
  }
}

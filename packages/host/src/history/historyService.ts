import { claudeSessionIdSchema } from '@outrigger/host-api';
import { HostError } from '../hostError.ts';
import type { HistoryReads } from '../service/hostService.ts';
import type { ClaudeHistory } from './claudeHistory.ts';
import { HistoryEventStream } from './historyEventStream.ts';

/**
 * The history's read routes over `ClaudeHistory`: the id checked before anything touches a file, absence as
 * `not_found` (a session outside the allowed roots included: it is not there for this host), and the streams
 * ended with `shutdown` when the host closes.
 */
export class HistoryService implements HistoryReads {
  readonly #history: Pick<ClaudeHistory, 'list' | 'page' | 'onChange' | 'close'>;
  readonly #streams = new Set<HistoryEventStream>();

  constructor(history: Pick<ClaudeHistory, 'list' | 'page' | 'onChange' | 'close'>) {
    this.#history = history;
  }

  listHistory: HistoryReads['listHistory'] = (query) => this.#history.list(query);

  getHistoryMessages: HistoryReads['getHistoryMessages'] = async (claudeSessionId, query) => {
    if (!claudeSessionIdSchema.safeParse(claudeSessionId).success) {
      throw new HostError('validation_failed', 'not a Claude Code session id', [
        { path: 'claudeSessionId', message: 'expected a UUID' },
      ]);
    }
    const transcript = await this.#history.page(claudeSessionId, query);
    if (transcript === undefined) throw new HostError('not_found', 'no Claude Code session with that id here');
    return transcript;
  };

  openHistoryStream: HistoryReads['openHistoryStream'] = () => {
    const stream = new HistoryEventStream((listener) => this.#history.onChange(listener));
    this.#streams.add(stream);
    void stream.ended.then(() => this.#streams.delete(stream));
    return stream;
  };

  async close(): Promise<void> {
    for (const stream of [...this.#streams]) stream.end('shutdown');
    await this.#history.close();
  }
}

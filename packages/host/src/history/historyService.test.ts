import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HistoryChangedEvent } from '@outrigger/host-api';
import type { HostError } from '../hostError.ts';
import type { SessionService } from '../service/hostService.ts';
import { HistoryService } from './historyService.ts';
import { hostServiceWithHistory } from './hostServiceWithHistory.ts';

/* The history's routes over a stand-in `ClaudeHistory`, and the host service that puts them beside the manager. */

function fakeHistory() {
  const listeners = new Set<(event: HistoryChangedEvent) => void>();
  const calls: string[] = [];
  return {
    calls,
    emit: (event: HistoryChangedEvent) => {
      for (const listener of listeners) listener(event);
    },
    list: async () => ({
      configDir: '/c',
      projects: [],
      total: 0,
      hiddenOutsideRoots: 0,
      indexState: 'ready' as const,
      revision: 0,
    }),
    page: async (id: string) => {
      calls.push(`page ${id}`);
      return undefined;
    },
    onChange: (listener: (event: HistoryChangedEvent) => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: async () => {
      calls.push('close');
    },
  };
}

test('an id that is no UUID is refused before the history is asked; an unknown one is not_found', async () => {
  const history = fakeHistory();
  const service = new HistoryService(history);
  for (const id of ['nope', '../../etc/passwd', '']) {
    await assert.rejects(service.getHistoryMessages(id, {}), (error: HostError) => error.code === 'validation_failed');
  }
  assert.deepEqual(history.calls, []);
  await assert.rejects(
    service.getHistoryMessages('33333333-3333-4333-8333-333333333333', {}),
    (error: HostError) => error.code === 'not_found',
  );
});

test('a history stream follows the changes from its opening and ends with shutdown when the host closes', async () => {
  const history = fakeHistory();
  const service = new HistoryService(history);
  history.emit({ revision: 1, claudeSessionIds: ['before'] });
  const stream = service.openHistoryStream();
  history.emit({ revision: 2, claudeSessionIds: ['a'] });
  const iterator = stream[Symbol.asyncIterator]();
  assert.deepEqual((await iterator.next()).value, { revision: 2, claudeSessionIds: ['a'] });
  await service.close();
  assert.equal(await stream.ended, 'shutdown');
  assert.equal((await iterator.next()).done, true);
  assert.deepEqual(history.calls, ['close']);
});

test('the host service answers session routes from the manager and closes the history before it', async () => {
  const order: string[] = [];
  class Manager {
    readonly #secret = 'manager';
    info() {
      return { version: this.#secret } as never;
    }
    async close() {
      order.push('manager');
    }
  }
  const history = new HistoryService({
    ...fakeHistory(),
    close: async () => {
      order.push('history');
    },
  });
  const service = hostServiceWithHistory(new Manager() as unknown as SessionService, history);
  // Private fields work: the manager's methods run on the manager, not on the composition.
  assert.deepEqual(service.info(), { version: 'manager' });
  assert.equal(service.info, service.info, 'bound once');
  assert.equal((await service.listHistory({})).configDir, '/c');
  await service.close();
  assert.deepEqual(order, ['history', 'manager']);
});

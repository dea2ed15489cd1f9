import type { HostLogger } from '../../logging/hostLogger.ts';
import { createMemoryLogger } from '../../logging/hostLogger.ts';
import { createHostApp, type HostAppOptions } from '../hostApp.ts';
import { FakeHostService } from './fakeHostService.ts';

export const TEST_TOKEN = 'test-token-0123456789abcdefghijklmnopqrstuvwxyz';
export const TEST_PORT = 7411;

/** A host app over a `FakeHostService`, and `call()` that sends what a legitimate client sends. */
export function appForTest(options: Partial<HostAppOptions> & { service?: FakeHostService } = {}) {
  const service = options.service ?? new FakeHostService();
  const logger = (options.logger ?? createMemoryLogger()) as HostLogger & { records(): Record<string, unknown>[] };
  const app = createHostApp({
    service,
    logger,
    security: { token: () => TEST_TOKEN, port: TEST_PORT, boundHost: '127.0.0.1' },
    validateResponses: true,
    ...options,
  });
  const call = (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    if (!headers.has('host')) headers.set('host', `127.0.0.1:${TEST_PORT}`);
    if (!headers.has('authorization')) headers.set('authorization', `Bearer ${TEST_TOKEN}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    return app.request(`http://127.0.0.1:${TEST_PORT}${path}`, { ...init, headers, body });
  };
  return { app, service, logger, call };
}

import { TEST_DRIVER_ENV } from '../testDriver/testDriverSession.ts';

/**
 * The whole environment of a sidecar in test-driver mode (a spawned sidecar inherits nothing): `PATH`, the
 * driver switch, and `extra`. No SDK, no Claude Code, no network.
 */
export function testDriverEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', [TEST_DRIVER_ENV]: '1', ...extra };
}

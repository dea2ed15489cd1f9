import { runtimeTimersFromEnv } from '../runtime/runtimeDefaults.ts';
import { SessionRuntime } from '../runtime/sessionRuntime.ts';
import type { SessionFactory } from '../shared/sidecarSession.ts';
import { isTestDriverEnabled, TestDriverSession } from '../testDriver/testDriverSession.ts';

/** Sessions on the real SDK, or on the scripted driver when the sidecar runs in test-driver mode. */
export function createSessionFactory(processEnv: NodeJS.ProcessEnv): SessionFactory {
  if (isTestDriverEnabled(processEnv)) return (payload, emit) => new TestDriverSession(payload, emit);
  const timers = runtimeTimersFromEnv(processEnv);
  return (payload, emit) => new SessionRuntime({ payload, emit, processEnv, timers });
}

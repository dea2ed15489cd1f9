import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HostClient } from '@outrigger/host-api';
import { type MockAnthropic, type MockRule, type ScenarioInput, startMockAnthropic } from '@outrigger/mock-anthropic';
import { type ClaudeTestHome, createClaudeTestHome } from '@outrigger/mock-anthropic/testing';
import { createFileAndStderrLogger } from '../../src/logging/hostLogger.ts';
import { type RunningHost, startHost } from '../../src/serve.ts';
import type { ServiceFactory } from '../../src/service/serviceFactory.ts';
import { assertNoProcessesLeft, killMarkedProcesses, TEST_MARK_VARIABLE } from './processes.ts';

/** Claude Code offers TodoWrite only with these two (see claude-code-offline.md §1). */
export const TODO_WRITE_ENV = { CLAUDE_CODE_ENABLE_TODO_TOOLS: '1', CLAUDE_CODE_ENABLE_TASKS: '0' } as const;

export interface TestHostOptions {
  /** The scripted model (mock-anthropic rules, then the scenario's). */
  scenario?: ScenarioInput;
  rules?: MockRule[];
  /** Extra environment for the sidecar and Claude Code (e.g. `TODO_WRITE_ENV`). */
  env?: Record<string, string>;
  heartbeatMs?: number;
  toolTimeoutMs?: number;
  allowRoots?: string[];
  /** Default: the real core (store, hub, projection, sidecar, sessions). */
  createService?: ServiceFactory;
}

/** A real host on a free port, over a temp data dir, whose sidecar's Claude Code talks to mock-anthropic. */
export interface TestHost {
  readonly host: RunningHost;
  /** A client with the token. */
  readonly client: HostClient;
  readonly mock: MockAnthropic;
  /** Claude Code's isolated config/tmp dirs; `cwd` is a directory sessions may run in. */
  readonly home: ClaudeTestHome;
  readonly cwd: string;
  readonly dataDir: string;
  /** In the environment of every process this host started (see `processes.ts`). */
  readonly mark: string;
  /** Every line of the host's log files so far. */
  logText(): Promise<string>;
  /** Parsed log records so far. */
  logRecords(): Promise<Record<string, unknown>[]>;
  /**
   * Stops the host (sessions, sidecar) and starts it again on the same data dir (a new port); `whileDown`
   * runs in between, with nothing holding the database (to leave a state a crash could have left).
   */
  restart(whileDown?: () => Promise<void>): Promise<void>;
  /** Stops everything, checks that no process is left, removes the temp dirs. */
  close(): Promise<void>;
}

export async function startTestHost(options: TestHostOptions = {}): Promise<TestHost> {
  const mark = randomUUID();
  const mock = await startMockAnthropic({ scenario: options.scenario, rules: options.rules });
  const home = await createClaudeTestHome({ baseUrl: mock.url, env: options.env });
  const dataDir = await mkdtemp(join(tmpdir(), 'outrigger-host-'));
  const start = () =>
    startHost({
      dataDir,
      port: 0,
      sidecarEnv: { ...home.env, [TEST_MARK_VARIABLE]: mark },
      modelBackend: { kind: 'anthropic', reason: 'the test points Claude Code at mock-anthropic' },
      allowRoots: options.allowRoots,
      toolTimeoutMs: options.toolTimeoutMs,
      heartbeatMs: options.heartbeatMs,
      createService: options.createService,
      logger: createFileAndStderrLogger({ dataDir, stderr: false, level: 'debug' }),
      validateResponses: true,
    });
  let host: RunningHost;
  try {
    host = await start();
  } catch (error) {
    await mock.close();
    await home.cleanup();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  const clientOf = (running: RunningHost) => new HostClient({ baseUrl: running.baseUrl, token: running.token });
  const logText = async () => {
    const dir = join(dataDir, 'logs');
    const files = (await readdir(dir).catch(() => [] as string[])).sort().reverse();
    return (await Promise.all(files.map((file) => readFile(join(dir, file), 'utf8')))).join('');
  };
  const testHost = {
    host,
    client: clientOf(host),
    mock,
    home,
    cwd: home.cwd,
    dataDir,
    mark,
    logText,
    logRecords: async () =>
      (await logText())
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    restart: async (whileDown?: () => Promise<void>) => {
      await testHost.host.close();
      await whileDown?.();
      testHost.host = await start();
      testHost.client = clientOf(testHost.host);
    },
    close: async () => {
      try {
        await testHost.host.close();
        await assertNoProcessesLeft(mark);
      } finally {
        killMarkedProcesses(mark);
        await mock.close();
        await home.cleanup();
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
  return testHost;
}

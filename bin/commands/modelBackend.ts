import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { demoScenario, startMockAnthropic } from '@outrigger/mock-anthropic';

/** Where the sidecar's Claude Code sends its model requests, and the environment that says so. */
export interface ModelBackend {
  readonly kind: 'demo' | 'anthropic';
  /** The sidecar's complete environment (its Claude Code children inherit it). */
  readonly sidecarEnv: Record<string, string | undefined>;
  /** Says which model answers; for the demo it must not be missed. */
  readonly headline: string;
  /** Further lines to show before the first prompt. */
  readonly notice: readonly string[];
  close(): Promise<void>;
}

/** The words the demo scenario answers to, as the banner lists them. */
export const DEMO_KEYWORDS: readonly (readonly [keyword: string, effect: string])[] = [
  ['markdown', 'a streamed formatted answer'],
  ['plan / todo', 'a TodoWrite plan worked through step by step'],
  ['run / command', 'a shell command that asks your permission'],
  ['ask / question', 'a multiple-choice question'],
  ['background', 'a background job and its later report'],
  ['think', 'a thinking block, then the answer'],
  ['slow / cancel', 'a 20 s stream to try Ctrl-C on'],
];

const CREDENTIAL_VARIABLES = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_BASE_URL'] as const;

export function hasModelCredentials(env: NodeJS.ProcessEnv): boolean {
  return CREDENTIAL_VARIABLES.some((name) => (env[name] ?? '') !== '');
}

/**
 * Claude when the environment names a model endpoint or key; otherwise the scripted demo model on
 * loopback, with Claude Code kept in its own config dir under `dataDir` so the user's own Claude Code
 * settings, history and credentials are neither read nor touched.
 */
export async function openModelBackend(options: {
  processEnv: NodeJS.ProcessEnv;
  dataDir: string;
}): Promise<ModelBackend> {
  const { processEnv, dataDir } = options;
  if (hasModelCredentials(processEnv)) {
    return {
      kind: 'anthropic',
      sidecarEnv: { ...processEnv },
      headline: 'Model: Claude, with your usual Claude Code configuration.',
      notice: [],
      close: async () => undefined,
    };
  }
  const home = join(dataDir, 'demo-claude');
  const configDir = join(home, 'config');
  const tmpDir = join(home, 'tmp');
  await Promise.all([mkdir(configDir, { recursive: true }), mkdir(tmpDir, { recursive: true })]);
  const mock = await startMockAnthropic({ scenario: demoScenario, strict: false });
  const width = Math.max(...DEMO_KEYWORDS.map(([keyword]) => keyword.length));
  return {
    kind: 'demo',
    sidecarEnv: {
      ...processEnv,
      ANTHROPIC_BASE_URL: mock.url,
      // Claude Code refuses to start without a key; the demo server never checks it.
      ANTHROPIC_API_KEY: 'sk-ant-outrigger-demo',
      CLAUDE_CONFIG_DIR: configDir,
      CLAUDE_CODE_TMPDIR: tmpDir,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      // The demo plan uses TodoWrite, which Claude Code offers only with these two.
      CLAUDE_CODE_ENABLE_TODO_TOOLS: '1',
      CLAUDE_CODE_ENABLE_TASKS: '0',
    },
    headline: '*** DEMO MODEL — offline scripted answers; set ANTHROPIC_API_KEY for Claude ***',
    notice: [
      'Put one of these words in a message to see a feature:',
      ...DEMO_KEYWORDS.map(([keyword, effect]) => `  ${keyword.padEnd(width)}  ${effect}`),
    ],
    close: () => mock.close(),
  };
}

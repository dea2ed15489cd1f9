import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  findModelCredential,
  MODEL_CREDENTIAL_VARIABLES,
  type ModelCredential,
} from '@outrigger/claude-sdk-sidecar/credentials';
import { demoScenario, startMockAnthropic } from '@outrigger/mock-anthropic';

/** Where the sidecar's Claude Code sends its model requests, and the environment that says so. */
export interface ModelBackend {
  readonly kind: 'demo' | 'anthropic';
  /** The sidecar's complete environment (its Claude Code children inherit it). */
  readonly sidecarEnv: Record<string, string | undefined>;
  /** Says which model answers and why; for the demo it must not be missed. */
  readonly headline: string;
  /** Why this model answers, in one sentence (the host's `info.modelBackendReason`). */
  readonly reason: string;
  /** Further lines to show before the first prompt. */
  readonly notice: readonly string[];
  close(): Promise<void>;
}

/** The words the demo scenario answers to, as the banner lists them. */
export const DEMO_KEYWORDS: readonly (readonly [keyword: string, effect: string])[] = [
  ['markdown', 'a streamed formatted answer'],
  ['plan / todo', 'a TodoWrite plan worked through step by step'],
  ['run / command', 'a shell command that asks your permission'],
  ['edit / diff', 'a file written, then edited: the change as a diff (Files changed)'],
  ['ask / question', 'a multiple-choice question'],
  ['background', 'a background job and its later report'],
  ['think', 'a thinking block, then the answer'],
  ['slow / cancel', 'a 20 s stream to stop halfway (Stop or Esc in the web UI, Ctrl-C in the chat)'],
];

/** Why the real model was chosen, in a few words (also `outrigger doctor`'s credential line). */
export function credentialReason(credential: ModelCredential): string {
  switch (credential.source) {
    case 'environment':
      return `${credential.variable} is set in the environment`;
    case 'settings':
      return `${credential.variable} is set in Claude's settings files`;
    case 'login':
      return `you are logged in to Claude (${credential.path})`;
  }
}

/**
 * The model the sidecar's Claude Code talks to (ARCHITECTURE's "Demo model" rule): Claude, with the
 * user's own Claude Code configuration, when a credential is found (`findModelCredential`; `cwd` adds the
 * project settings above a session's directory); otherwise the scripted demo model on loopback, with
 * Claude Code kept in its own config dir under `dataDir` so the user's Claude Code settings, history and
 * credentials are neither read nor touched. Both say which they are and why.
 */
export async function openModelBackend(options: {
  processEnv: NodeJS.ProcessEnv;
  dataDir: string;
  cwd?: string;
}): Promise<ModelBackend> {
  const { processEnv, dataDir } = options;
  const credential = findModelCredential({ processEnv, cwd: options.cwd });
  if (credential) {
    return {
      kind: 'anthropic',
      sidecarEnv: { ...processEnv },
      headline: `Model: Claude, with your Claude Code configuration (${credentialReason(credential)}).`,
      reason: `A Claude credential was found: ${credentialReason(credential)}.`,
      notice: [],
      close: async () => undefined,
    };
  }
  const home = join(dataDir, 'demo-claude');
  const configDir = join(home, 'config');
  const tmpDir = join(home, 'tmp');
  // Owner only, the data directory included when this makes it: Claude Code keeps every demo transcript in
  // its config dir, and a recursive mkdir without a mode would leave the data directory 0755 for the host.
  await Promise.all([
    mkdir(configDir, { recursive: true, mode: 0o700 }),
    mkdir(tmpDir, { recursive: true, mode: 0o700 }),
  ]);
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
    headline: '*** DEMO MODEL — offline scripted answers: no Claude credential was found ***',
    reason: 'No Anthropic credential was found, so the offline demo model answers.',
    notice: [
      `Looked for ${MODEL_CREDENTIAL_VARIABLES.join(', ')}`,
      "(in the environment and Claude's settings files) and a Claude login; set one or log in for Claude.",
      'Put one of these words in a message to see a feature:',
      ...DEMO_KEYWORDS.map(([keyword, effect]) => `  ${keyword.padEnd(width)}  ${effect}`),
    ],
    close: () => mock.close(),
  };
}

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { type MockAnthropic, startMockAnthropic } from '@outrigger/mock-anthropic';
import { type ClaudeTestHome, createClaudeTestHome } from '@outrigger/mock-anthropic/testing';

/** The prompt that makes the bench model stream long enough to be canceled mid-stream. */
export const SLOW_PROMPT = 'bench: slow stream';

/** A short answer, streamed in several chunks, so a turn is mostly per-turn overhead. */
const ANSWER = 'The bench model answers in a few streamed chunks so every turn pays the full path. '.repeat(3);

const MOCK_PROCESS = fileURLToPath(new URL('./mockProcess.ts', import.meta.url));
const MOCK_TIMEOUT_MS = 30_000;

/**
 * mock-anthropic with the bench scenario, in a process of its own, and an isolated Claude Code home pointing
 * at it. The real API is never in the process that consumes Claude Code's output: run in the bench's own
 * process, the mock kept a raw `query()` loop's event loop awake for free whenever a turn's output arrived,
 * which no real client gets (docs/performance.md). Strict: a request the scenario does not expect fails the
 * run instead of skewing it.
 */
export interface BenchModel {
  readonly home: ClaudeTestHome;
  /** Stops the mock and removes the home; resolves with how many model requests matched no rule. */
  close(): Promise<number>;
}

/** mock-anthropic answering with the bench scenario. */
export function startBenchMock(): Promise<MockAnthropic> {
  return startMockAnthropic({
    scenario: {
      name: 'bench',
      rules: [
        {
          match: { userText: SLOW_PROMPT },
          reply: { content: [{ type: 'text', text: 'slow '.repeat(400), chunkSize: 5, chunkDelayMs: 20 }] },
        },
        { match: { userText: 'bench:' }, reply: { content: [{ type: 'text', text: ANSWER, chunkSize: 24 }] } },
      ],
    },
  });
}

export async function openBenchModel(): Promise<BenchModel> {
  const child = spawn(process.execPath, [MOCK_PROCESS], { stdio: ['pipe', 'pipe', 'inherit'] });
  const replies = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = once(child, 'exit');
  const reply = async (what: string): Promise<Record<string, unknown>> => {
    const next = await Promise.race([
      replies.next(),
      exited.then(() => ({ done: true as const, value: undefined })),
      new Promise<never>((_resolve, reject) =>
        setTimeout(() => reject(new Error(`the bench mock sent no ${what}`)), MOCK_TIMEOUT_MS).unref(),
      ),
    ]);
    if (next.done) throw new Error(`the bench mock exited before its ${what}`);
    return JSON.parse(next.value) as Record<string, unknown>;
  };
  let home: ClaudeTestHome;
  try {
    const { url } = await reply('url');
    home = await createClaudeTestHome({ baseUrl: String(url) });
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    home,
    close: async () => {
      try {
        child.stdin.end();
        const { unmatched } = await reply('unmatched count');
        await exited;
        return Number(unmatched);
      } finally {
        child.kill('SIGKILL');
        await home.cleanup();
      }
    },
  };
}

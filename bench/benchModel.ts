import { type MockAnthropic, startMockAnthropic } from '@outrigger/mock-anthropic';
import { type ClaudeTestHome, createClaudeTestHome } from '@outrigger/mock-anthropic/testing';

/** The prompt that makes the bench model stream long enough to be canceled mid-stream. */
export const SLOW_PROMPT = 'bench: slow stream';

/** A short answer, streamed in several chunks, so a turn is mostly per-turn overhead. */
const ANSWER = 'The bench model answers in a few streamed chunks so every turn pays the full path. '.repeat(3);

/**
 * mock-anthropic with the bench scenario, and an isolated Claude Code home pointing at it. Strict:
 * a request the scenario does not expect fails the run instead of skewing it.
 */
export interface BenchModel {
  readonly mock: MockAnthropic;
  readonly home: ClaudeTestHome;
  close(): Promise<void>;
}

export async function openBenchModel(): Promise<BenchModel> {
  const mock = await startMockAnthropic({
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
  const home = await createClaudeTestHome({ baseUrl: mock.url });
  return {
    mock,
    home,
    close: async () => {
      await mock.close();
      await home.cleanup();
    },
  };
}

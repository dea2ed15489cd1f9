import { PromptQueue } from '../runtime/promptQueue.ts';
import { QueryGeneration } from '../runtime/queryGeneration.ts';
import { FakeClaudeQuery } from './fakeClaudeQuery.ts';

/**
 * Test support: a QueryGeneration over a FakeClaudeQuery that consumes (and drops) whatever its Query
 * streams, for tests of what creates, retires and shuts down generations.
 */
export function consumingFakeGeneration(id: number): { generation: QueryGeneration; query: FakeClaudeQuery } {
  const prompts = new PromptQueue();
  const query = new FakeClaudeQuery({ prompt: prompts, options: {} });
  const generation = new QueryGeneration({ id, query, prompts });
  generation.startConsuming(
    () => undefined,
    () => undefined,
  );
  return { generation, query };
}

import type { MockAnthropic, ScenarioInput } from '@outrigger/mock-anthropic';

/**
 * The plan the `plan` prompt makes Claude Code write with TodoWrite. (Claude Code validates the statuses, so
 * an unknown one never reaches the host from it; the store's tests cover that mapping.)
 */
export const PLAN_TODOS = [
  { content: 'Write the tests', status: 'completed', activeForm: 'Writing the tests' },
  { content: 'Make them pass', status: 'in_progress', activeForm: 'Making them pass' },
  { content: 'Ship it', status: 'pending', activeForm: 'Shipping it' },
] as const;

/** The slow answer: 40 chunks of 6 characters, 60 ms apart (about 2.4 s of streaming). */
export const SLOW_TEXT = Array.from({ length: 40 }, (_, index) => `w${String(index).padStart(3, '0')} `).join('');

/**
 * What the e2e tests ask the scripted model: `hello` → one short answer; `plan` → a TodoWrite, then an answer
 * to its result; `slowly` → a streamed answer that takes a few seconds.
 */
export const e2eScenario: ScenarioInput = {
  name: 'host e2e',
  rules: [
    {
      name: 'plan: answer the TodoWrite result',
      match: { userText: 'plan', toolResult: 'TodoWrite' },
      reply: { content: [{ type: 'text', text: 'The plan is in your task list.' }] },
    },
    {
      name: 'plan: write the todos',
      match: { userText: 'plan' },
      reply: {
        content: [{ type: 'tool_use', name: 'TodoWrite', input: { todos: PLAN_TODOS } }],
        stopReason: 'tool_use',
      },
    },
    {
      name: 'slowly: a long stream',
      match: { userText: 'slowly' },
      reply: { content: [{ type: 'text', text: SLOW_TEXT, chunkSize: 5, chunkDelayMs: 60 }] },
    },
    {
      name: 'hello',
      match: { userText: 'hello' },
      reply: { content: [{ type: 'text', text: 'Hello from the scripted model.' }] },
    },
  ],
};

/** The bodies (as JSON text) of the model requests `mock` got that carry `marker`, in order. */
export function modelRequestsWith(mock: MockAnthropic, marker: string): string[] {
  return mock
    .messageRequests()
    .map((request) => JSON.stringify(request.body))
    .filter((body) => body.includes(marker));
}

import {
  type MessagesRequestView,
  type MockAnthropic,
  type MockReply,
  startMockAnthropic,
  viewMessagesRequest,
} from '@outrigger/mock-anthropic';

/** How the model answers one test case: its prompt, then every tool_result of that turn. */
export interface CaseScript {
  /** The answer to the prompt; a function sees each request for it (a retry of a cut stream, say). */
  readonly prompt: MockReply | ((view: MessagesRequestView) => MockReply);
  /** Defaults to a short closing text. */
  readonly afterTool?: (view: MessagesRequestView) => MockReply;
}

/**
 * mock-anthropic answering by case: each prompt carries a `[case:N]` tag naming the script registered
 * for it, so one server (and one sidecar session) serves every test of a file.
 */
export interface ScriptedModel {
  readonly url: string;
  /** Registers `script` and returns a prompt that selects it. */
  prompt(text: string, script: CaseScript): string;
  /** Every POST /v1/messages request so far, as the rules saw it. */
  views(): MessagesRequestView[];
  /** Summaries of requests no case answered (each one failed its turn with an HTTP 500). */
  unmatched(): string[];
  close(): Promise<void>;
}

const casePattern = /\[case:(\d+)\]/g;
const closingText: MockReply = { content: [{ type: 'text', text: 'Done with the tool.' }] };

export async function startScriptedModel(): Promise<ScriptedModel> {
  const scripts = new Map<string, CaseScript>();
  const mock: MockAnthropic = await startMockAnthropic({
    rules: [
      (view) => {
        // After an interrupted request Claude Code merges the unanswered prompt into the next one: the last
        // tag is the prompt this request is for.
        const tag = [...view.lastUserText.matchAll(casePattern)].at(-1)?.[1];
        const script = tag === undefined ? undefined : scripts.get(tag);
        if (!script) return undefined;
        if (view.isNewPrompt) return typeof script.prompt === 'function' ? script.prompt(view) : script.prompt;
        return view.toolResults.length > 0 ? (script.afterTool?.(view) ?? closingText) : undefined;
      },
    ],
  });
  return {
    url: mock.url,
    prompt: (text, script) => {
      const tag = String(scripts.size + 1);
      scripts.set(tag, script);
      return `[case:${tag}] ${text}`;
    },
    views: () => mock.messageRequests().map((request, index) => viewMessagesRequest(request.body, index)),
    unmatched: () => mock.unmatched.map((request) => request.summary),
    close: () => mock.close(),
  };
}

/** A text answer that keeps streaming for `chunks × 100 ms`: long enough to act while it streams. */
export function slowText(chunks: number): MockReply {
  return {
    content: [{ type: 'text', text: 'streaming '.repeat(chunks), chunkSize: 10, chunkDelayMs: 100 }],
  };
}

export function bashCall(command: string): MockReply {
  return { content: [{ type: 'tool_use', name: 'Bash', input: { command, description: 'Run a test command' } }] };
}

export function askUserQuestionCall(questions: readonly Record<string, unknown>[]): MockReply {
  return { content: [{ type: 'tool_use', name: 'AskUserQuestion', input: { questions } }] };
}

import type { MessagesRequestView, MockReply, MockRuleFunction } from '@outrigger/mock-anthropic';

/** How the model answers one case: its prompt, and what it says after each tool result of that turn. */
export interface CaseScript {
  readonly prompt: MockReply;
  readonly afterTool?: (view: MessagesRequestView) => MockReply;
}

/**
 * Answers by case: each prompt carries a `[case:N]` tag naming its script, so one model (and one
 * Claude Code process per session) serves every case of a test file. `rule` goes into mock-anthropic's
 * rules (or a test host's); the newest tag in the last user text wins, so a steer or a follow-up
 * carrying its own tag gets its own script.
 */
export interface CaseScripts {
  readonly rule: MockRuleFunction;
  /** Registers `script` and returns a prompt that selects it. */
  prompt(text: string, script: CaseScript): string;
}

const casePattern = /\[case:(\d+)\]/g;
const closing: MockReply = { content: [{ type: 'text', text: 'Done with the tool.' }] };

export function caseScripts(): CaseScripts {
  const scripts = new Map<string, CaseScript>();
  return {
    rule: (view) => {
      const tag = [...view.lastUserText.matchAll(casePattern)].at(-1)?.[1];
      const script = tag === undefined ? undefined : scripts.get(tag);
      if (script === undefined) return undefined;
      if (view.isNewPrompt) return script.prompt;
      return view.toolResults.length > 0 ? (script.afterTool?.(view) ?? closing) : undefined;
    },
    prompt: (text, script) => {
      const tag = String(scripts.size + 1);
      scripts.set(tag, script);
      return `[case:${tag}] ${text}`;
    },
  };
}

/** A text answer streaming `chunks × 100 ms`: long enough to act on while it streams. */
export function slowText(chunks: number): MockReply {
  return { content: [{ type: 'text', text: 'streaming '.repeat(chunks), chunkSize: 10, chunkDelayMs: 100 }] };
}

export function text(answer: string): MockReply {
  return { content: [{ type: 'text', text: answer }] };
}

export function bashCall(command: string): MockReply {
  return { content: [{ type: 'tool_use', name: 'Bash', input: { command, description: 'Run a test command' } }] };
}

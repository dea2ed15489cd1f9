import type { MessagesRequestView, ToolResultView } from './requestView.ts';
import { ScenarioError, toProblems } from './scenarioLoader.ts';
import {
  type MockReply,
  mockReplySchema,
  type RuleMatch,
  type ScenarioRule,
  scenarioRuleSchema,
} from './scenarioSchema.ts';
import { matchesTextPattern } from './textPattern.ts';

/** Answers a request, or returns undefined to let the next rule try. */
export type MockRuleFunction = (request: MessagesRequestView) => MockReply | undefined;

export type MockRule = ScenarioRule | MockRuleFunction;

export interface RuleAnswer {
  reply: MockReply;
  /** The rule's name, or its position (`rules[3]`) when it has none. */
  ruleLabel: string;
}

/** An ordered list of rules with their remaining `times`; one per server, so counts never leak between servers. */
export class RuleBook {
  readonly #rules: readonly MockRule[];
  readonly #labels: readonly string[];
  readonly #fired = new Map<number, number>();

  constructor(rules: readonly MockRule[], sourceName: string) {
    this.#rules = rules.map((rule, position) => {
      if (typeof rule === 'function') return rule;
      const parsed = scenarioRuleSchema.safeParse(rule);
      if (parsed.success) return parsed.data;
      throw new ScenarioError(sourceName, toProblems(parsed.error.issues, ['rules', position]));
    });
    this.#labels = this.#rules.map((rule, position) =>
      typeof rule === 'function'
        ? `rules[${position}] (${rule.name || 'function'})`
        : (rule.name ?? `rules[${position}]`),
    );
  }

  answer(request: MessagesRequestView): RuleAnswer | undefined {
    for (const [position, rule] of this.#rules.entries()) {
      const ruleLabel = this.#labels[position] as string;
      if (typeof rule === 'function') {
        const reply = rule(request);
        if (reply === undefined) continue;
        const checked = mockReplySchema.safeParse(reply);
        if (!checked.success) {
          throw new ScenarioError(ruleLabel, toProblems(checked.error.issues, ['reply']));
        }
        return { reply: checked.data, ruleLabel };
      }
      const fired = this.#fired.get(position) ?? 0;
      if (rule.times !== undefined && fired >= rule.times) continue;
      if (!matchesRule(rule.match ?? {}, request)) continue;
      this.#fired.set(position, fired + 1);
      return { reply: rule.reply, ruleLabel };
    }
    return undefined;
  }
}

export function matchesRule(match: RuleMatch, request: MessagesRequestView): boolean {
  if (match.requestIndex !== undefined && match.requestIndex !== request.index) return false;
  if (match.toolResult !== undefined) {
    const wanted = match.toolResult;
    if (!request.toolResults.some((result) => matchesToolResult(wanted, result))) return false;
  }
  if (match.taskNotification !== undefined) {
    const notification = request.taskNotification;
    if (typeof match.taskNotification === 'boolean') {
      if ((notification !== undefined) !== match.taskNotification) return false;
    } else if (notification === undefined || !matchesTextPattern(match.taskNotification, notification)) {
      return false;
    }
  }
  if (match.userText !== undefined) {
    const scopesFollowUp = match.toolResult !== undefined || match.taskNotification !== undefined;
    if (!scopesFollowUp && !request.isNewPrompt) return false;
    if (!matchesTextPattern(match.userText, request.lastUserText)) return false;
  }
  return true;
}

function matchesToolResult(wanted: NonNullable<RuleMatch['toolResult']>, result: ToolResultView): boolean {
  if (typeof wanted === 'string') return result.toolName === wanted;
  if (wanted.name !== undefined && wanted.name !== result.toolName) return false;
  if (wanted.isError !== undefined && wanted.isError !== result.isError) return false;
  if (wanted.content !== undefined && !matchesTextPattern(wanted.content, result.content)) return false;
  if (wanted.input !== undefined && !containsPartially(result.toolInput, wanted.input)) return false;
  return true;
}

/** Objects match by subset, arrays position by position (a prefix), everything else by equality. */
function containsPartially(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) && expected.every((item, i) => i < actual.length && containsPartially(actual[i], item))
    );
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
    return Object.entries(expected).every(([key, value]) => containsPartially(Reflect.get(actual, key), value));
  }
  return Object.is(actual, expected);
}

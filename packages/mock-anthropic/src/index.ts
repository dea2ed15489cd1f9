export { anthropicErrorBody, anthropicErrorType } from './anthropicError.ts';
export type { MessageStreamEvent, ScriptedMessage } from './messageEvents.ts';
export { messageJson, messageStreamEvents, scriptMessage } from './messageEvents.ts';
export type { MockAnthropic, MockAnthropicOptions, UnmatchedRequest } from './mockAnthropic.ts';
export { startMockAnthropic } from './mockAnthropic.ts';
export type { RecordedRequest } from './recordedRequest.ts';
export type { MessagesRequestView, ToolResultView } from './requestView.ts';
export { viewMessagesRequest } from './requestView.ts';
export type { MockRule, MockRuleFunction } from './ruleBook.ts';
export type { ScenarioProblem } from './scenarioLoader.ts';
export { loadScenarioFile, parseScenario, ScenarioError } from './scenarioLoader.ts';
export { demoScenario, loadScenarioPack } from './scenarioPack.ts';
export type {
  BlockScript,
  ErrorReply,
  MessageReply,
  MockReply,
  ReplyUsage,
  RuleMatch,
  Scenario,
  ScenarioInput,
  ScenarioRule,
  ScenarioRuleInput,
  StallReply,
  StopReason,
} from './scenarioSchema.ts';
export type { SseFrame } from './sse.ts';
export { encodeSseEvent, parseSseStream } from './sse.ts';
export type { TextPattern } from './textPattern.ts';

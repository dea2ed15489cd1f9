export interface ToolResultView {
  toolUseId: string;
  /** Name of the tool_use this result answers, found in the request's assistant messages; '' when absent. */
  toolName: string;
  /** The result's text (text blocks joined with newlines). */
  content: string;
  isError: boolean;
  /** Input of the tool_use this result answers; undefined when absent. */
  toolInput: unknown;
}

/** What a rule sees of one POST /v1/messages request. */
export interface MessagesRequestView {
  /** 0-based count of POST /v1/messages requests so far. */
  index: number;
  /** The raw request body. */
  body: unknown;
  /**
   * Text of the last user message that has real text: `<system-reminder>` blocks, tool results and
   * `role:"system"` entries skipped. On a tool_result follow-up this is still the prompt of the turn.
   */
  lastUserText: string;
  /** Tool results in the last user message. */
  toolResults: ToolResultView[];
  /** The last user message itself carries text from the user (a fresh prompt), not only results or reminders. */
  isNewPrompt: boolean;
  /** Inner text of a `<task-notification>` in the last user message (a background task finished). */
  taskNotification: string | undefined;
}

interface ContentBlock {
  type?: unknown;
  text?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
  tool_use_id?: unknown;
  content?: unknown;
  is_error?: unknown;
}

interface ChatMessage {
  role: string;
  blocks: ContentBlock[];
}

const systemReminder = /<system-reminder>[\s\S]*?<\/system-reminder>/g;
const taskNotification = /<task-notification>([\s\S]*?)<\/task-notification>/;

export function viewMessagesRequest(body: unknown, index: number): MessagesRequestView {
  const messages = readMessages(body);
  const toolUses = new Map<string, { name: string; input: unknown }>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const block of message.blocks) {
      if (block.type === 'tool_use' && typeof block.id === 'string') {
        toolUses.set(block.id, { name: typeof block.name === 'string' ? block.name : '', input: block.input });
      }
    }
  }

  const userMessages = messages.filter((message) => message.role === 'user');
  const lastUser = userMessages.at(-1);
  const toolResults: ToolResultView[] = [];
  for (const block of lastUser?.blocks ?? []) {
    if (block.type !== 'tool_result' || typeof block.tool_use_id !== 'string') continue;
    const toolUse = toolUses.get(block.tool_use_id);
    toolResults.push({
      toolUseId: block.tool_use_id,
      toolName: toolUse?.name ?? '',
      content: resultText(block.content),
      isError: block.is_error === true,
      toolInput: toolUse?.input,
    });
  }

  let lastUserText = '';
  for (let i = userMessages.length - 1; i >= 0 && lastUserText === ''; i--) lastUserText = realText(userMessages[i]);
  const rawLastText = lastUser === undefined ? '' : textBlocks(lastUser).join('\n');

  return {
    index,
    body,
    lastUserText,
    toolResults,
    isNewPrompt: lastUser !== undefined && realText(lastUser) !== '',
    taskNotification: taskNotification.exec(rawLastText)?.[1]?.trim(),
  };
}

function readMessages(body: unknown): ChatMessage[] {
  if (!isRecord(body) || !Array.isArray(body.messages)) return [];
  const messages: ChatMessage[] = [];
  for (const entry of body.messages) {
    if (!isRecord(entry) || typeof entry.role !== 'string') continue;
    const blocks =
      typeof entry.content === 'string'
        ? [{ type: 'text', text: entry.content }]
        : Array.isArray(entry.content)
          ? entry.content.filter(isRecord)
          : [];
    messages.push({ role: entry.role, blocks });
  }
  return messages;
}

function textBlocks(message: ChatMessage): string[] {
  return message.blocks.flatMap((block) =>
    block.type === 'text' && typeof block.text === 'string' ? [block.text] : [],
  );
}

function realText(message: ChatMessage): string {
  return textBlocks(message)
    .map((text) => text.replace(systemReminder, '').trim())
    .filter((text) => text !== '')
    .join('\n');
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .flatMap((block) =>
      isRecord(block) && block.type === 'text' && typeof block.text === 'string' ? [block.text] : [],
    )
    .join('\n');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

import type { SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { asRecord, stringField } from '../shared/sdkMessages.ts';

type UserContent = SDKUserMessage['message']['content'];
type ContentBlock = Exclude<UserContent, string>[number];

const BASE64_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

export interface PromptInput {
  prompt: string;
  content: readonly unknown[] | undefined;
  hostContext: string;
}

/**
 * The SDK user-message content for a prompt: the host's text and image blocks (falling back to the legacy
 * `prompt` text when no block survives), with the host context as a leading text block.
 */
export function buildPromptContent(input: PromptInput): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const block of input.content ?? []) {
    const converted = convertBlock(block);
    if (converted) blocks.push(converted);
  }
  if (blocks.length === 0 && input.prompt.length > 0) blocks.push({ type: 'text', text: input.prompt });
  if (input.hostContext.length > 0) blocks.unshift({ type: 'text', text: input.hostContext });
  return blocks;
}

function convertBlock(value: unknown): ContentBlock | undefined {
  const block = asRecord(value);
  if (!block) return undefined;
  if (block.type === 'text') {
    return typeof block.text === 'string' && block.text.length > 0 ? { type: 'text', text: block.text } : undefined;
  }
  if (block.type !== 'image') return undefined;
  const source = asRecord(block.source);
  const data = stringField(block, 'data') ?? stringField(source, 'data');
  if (data) {
    const mediaType =
      stringField(block, 'mimeType') ??
      stringField(block, 'mediaType') ??
      stringField(block, 'media_type') ??
      stringField(source, 'media_type');
    if (!mediaType || !BASE64_IMAGE_TYPES.has(mediaType)) return undefined;
    return {
      type: 'image',
      source: { type: 'base64', media_type: mediaType as 'image/png', data },
    };
  }
  const url = stringField(block, 'url') ?? stringField(block, 'uri') ?? stringField(source, 'url');
  return url && isSafeImageUrl(url) ? { type: 'image', source: { type: 'url', url } } : undefined;
}

/** Only plain https URLs reach Claude Code: no other scheme, no embedded credentials. */
function isSafeImageUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && url.username === '' && url.password === '' && url.hostname.length > 0;
}

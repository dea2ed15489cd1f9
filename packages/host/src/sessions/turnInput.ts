import type { PostTurnBody } from '@outrigger/host-api';
import type { PromptBlock } from '@outrigger/protocol';
import type { PromptInput } from '../projection/sessionCommand.ts';
import type { AttachmentRecord, TurnInputBlock } from '../store/records.ts';

/** Splits a turn body into what is stored: images become attachments (decoded once, here). */
export function draftTurn(
  body: PostTurnBody,
  context: { sessionId: string; turnId: string; now: number; newId: () => string },
): PromptInput {
  const input: TurnInputBlock[] = [];
  const attachments: AttachmentRecord[] = [];
  for (const block of body.content ?? []) {
    if (block.type === 'text') {
      input.push({ type: 'text', text: block.text });
      continue;
    }
    const attachment: AttachmentRecord = {
      id: context.newId(),
      sessionId: context.sessionId,
      turnId: context.turnId,
      mediaType: block.source.media_type,
      bytes: new Uint8Array(Buffer.from(block.source.data, 'base64')),
      createdAt: context.now,
    };
    attachments.push(attachment);
    input.push({ type: 'image', attachmentId: attachment.id, mediaType: attachment.mediaType });
  }
  return { prompt: body.prompt, input, attachments, clientMessageId: body.clientMessageId ?? null };
}

/**
 * The content blocks of `exec`/`guide`: the prompt text first (when it has any), then the extra blocks
 * in order, images as base64 again. The sidecar sends them to Claude as one user message.
 */
export async function promptBlocks(
  prompt: string,
  input: readonly TurnInputBlock[],
  loadAttachment: (attachmentId: string) => Promise<AttachmentRecord | undefined>,
): Promise<PromptBlock[]> {
  const blocks: PromptBlock[] = [];
  if (prompt.trim() !== '') blocks.push({ type: 'text', text: prompt });
  for (const block of input) {
    if (block.type === 'text') {
      if (block.text !== '') blocks.push({ type: 'text', text: block.text });
      continue;
    }
    const attachment = await loadAttachment(block.attachmentId);
    if (attachment === undefined) throw new Error(`attachment ${block.attachmentId} is missing`);
    blocks.push({
      type: 'image',
      source: {
        type: 'base64',
        media_type: attachment.mediaType,
        data: Buffer.from(attachment.bytes).toString('base64'),
      },
    });
  }
  return blocks;
}

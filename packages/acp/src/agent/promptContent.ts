import { type ContentBlock, RequestError } from '@agentclientprotocol/sdk';
import { type ImageMediaType, imageMediaTypes, type PostTurnBody } from '@outrigger/host-api';

/*
 * An ACP prompt as the host's turn body. The text blocks are the prompt; what the editor attaches goes after
 * it as the host's content blocks: images as they are, an embedded resource (a file or selection the editor
 * sent, unsaved edits included) as text that names where it is from, a link as its path for Claude Code to
 * read itself. Audio and binary resources are refused: Claude Code could not read them.
 */

type HostBlock = NonNullable<PostTurnBody['content']>[number];

export function turnBodyOf(prompt: readonly ContentBlock[], clientMessageId: string): PostTurnBody {
  const text: string[] = [];
  const content: HostBlock[] = [];
  for (const block of prompt) {
    switch (block.type) {
      case 'text':
        text.push(block.text);
        break;
      case 'image':
        if (!isImageMediaType(block.mimeType)) {
          throw RequestError.invalidParams(undefined, `an image must be one of ${imageMediaTypes.join(', ')}`);
        }
        content.push({ type: 'image', source: { type: 'base64', media_type: block.mimeType, data: block.data } });
        break;
      case 'resource_link':
        content.push({ type: 'text', text: `Attached: ${pathOf(block.uri)}` });
        break;
      case 'resource': {
        const resource = block.resource;
        if (!('text' in resource)) {
          throw RequestError.invalidParams(undefined, 'a binary resource cannot be sent to Claude Code');
        }
        content.push({ type: 'text', text: `Contents of ${pathOf(resource.uri)}:\n\n${resource.text}` });
        break;
      }
      case 'audio':
        throw RequestError.invalidParams(undefined, 'audio prompts are not supported');
    }
  }
  const body: PostTurnBody = { prompt: text.join('\n\n'), clientMessageId };
  if (body.prompt.trim() === '' && content.length === 0)
    throw RequestError.invalidParams(undefined, 'the prompt is empty');
  return content.length === 0 ? body : { ...body, content };
}

function isImageMediaType(value: string): value is ImageMediaType {
  return (imageMediaTypes as readonly string[]).includes(value);
}

/** A `file://` URI as the path Claude Code reads; any other URI as it is. */
function pathOf(uri: string): string {
  if (!uri.startsWith('file://')) return uri;
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return uri;
  }
}

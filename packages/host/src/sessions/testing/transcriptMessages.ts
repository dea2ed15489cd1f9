import type { TranscriptMessage } from '../claudeTranscripts.ts';

/** Transcript messages as Claude Code's session functions return them, for the outside-changes tests. */
export const prompt = (uuid: string, text: string): TranscriptMessage => ({
  type: 'user',
  uuid,
  message: { role: 'user', content: text },
});
export const answer = (uuid: string, text: string): TranscriptMessage => ({
  type: 'assistant',
  uuid,
  message: { role: 'assistant', content: [{ type: 'text', text }] },
});
export const toolCall = (uuid: string, name: string): TranscriptMessage => ({
  type: 'assistant',
  uuid,
  message: { role: 'assistant', content: [{ type: 'tool_use', id: 't', name, input: {} }] },
});
export const toolResult = (uuid: string): TranscriptMessage => ({
  type: 'user',
  uuid,
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] },
});

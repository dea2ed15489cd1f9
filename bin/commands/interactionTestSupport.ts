import type { InteractionRequested } from '@outrigger/protocol';

/** The options the sidecar offers with an approval that may grant a standing session permission. */
export const approvalOptions: InteractionRequested['options'] = [
  { kind: 'allow_always', name: 'Allow for session', optionId: 'allow_always' },
  { kind: 'allow_once', name: 'Allow', optionId: 'allow' },
  { kind: 'reject_once', name: 'Reject', optionId: 'reject' },
];

/** An `approval_requested` / `user_input_requested` payload whose tool call matches its tool. */
export function interactionRequest(
  fields: Partial<InteractionRequested> & Pick<InteractionRequested, 'toolName' | 'input'>,
): InteractionRequested {
  const toolCallId = fields.toolCallId ?? 'toolu_1';
  const toolCall = {
    toolCallId,
    name: fields.toolName,
    title: fields.toolName,
    toolName: fields.toolName,
    input: fields.input,
  };
  return { turnId: 't1', requestId: 'r1', toolCallId, options: [], toolCall, ...fields };
}

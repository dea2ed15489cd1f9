import { z } from 'zod';
import { jsonObject, requiredText, text } from './fields.ts';

/** (turnId, requestId) is the identity of an interaction, so both are required. */
const interactiveSubmission = (type: string) =>
  z.object({
    agentSessionId: requiredText(`${type} requires agentSessionId`),
    turnId: requiredText(`${type} requires turnId`),
    requestId: requiredText(`${type} requires requestId`),
    action: text(),
    optionId: text(),
    payload: jsonObject(),
  });

export const submitInteractivePayloadSchema = interactiveSubmission('submit_interactive');
export type SubmitInteractivePayload = z.output<typeof submitInteractivePayloadSchema>;

/** The fields describe the submission the host expects to have been applied. */
export const interactiveDispositionPayloadSchema = interactiveSubmission('interactive_disposition');
export type InteractiveDispositionPayload = z.output<typeof interactiveDispositionPayloadSchema>;

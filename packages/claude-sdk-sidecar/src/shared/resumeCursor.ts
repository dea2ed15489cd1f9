import { isPositiveSafeInteger } from '@outrigger/protocol';
import { asRecord, stringField } from './sdkMessages.ts';

const RESUME_CURSOR_KIND = 'claude-agent-sdk';

export interface ResumeCursor {
  kind: typeof RESUME_CURSOR_KIND;
  version: 1;
  resume: string;
  resumeSessionAt?: string;
  turnCount: number;
}

export interface RestoredPosition {
  resume: string | undefined;
  resumeSessionAt: string | undefined;
  turnCount: number;
}

/** Reads a host-held cursor; anything that is not ours restores nothing. */
export function readResumeCursor(value: unknown): RestoredPosition {
  const cursor = asRecord(value);
  if (!cursor || cursor.kind !== RESUME_CURSOR_KIND) {
    return { resume: undefined, resumeSessionAt: undefined, turnCount: 0 };
  }
  const turnCount = cursor.turnCount;
  return {
    resume: stringField(cursor, 'resume')?.trim() || undefined,
    resumeSessionAt: stringField(cursor, 'resumeSessionAt')?.trim() || undefined,
    turnCount: isPositiveSafeInteger(turnCount) ? turnCount : 0,
  };
}

export function resumeCursor(providerSessionId: string, lastAssistantUuid: string | undefined, turnCount: number) {
  const cursor: ResumeCursor = {
    kind: RESUME_CURSOR_KIND,
    version: 1,
    resume: providerSessionId,
    ...(lastAssistantUuid ? { resumeSessionAt: lastAssistantUuid } : {}),
    turnCount,
  };
  return cursor;
}

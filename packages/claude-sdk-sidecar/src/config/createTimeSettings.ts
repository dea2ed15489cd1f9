import type { EffortLevel, Settings } from '@anthropic-ai/claude-agent-sdk';

/** The settings that are baked into a Query when it is created (the SDK's flag-settings layer). */
export type CreateTimeSettings = Pick<Settings, 'plansDirectory' | 'fastMode' | 'effortLevel'>;

export interface CreateTimeSettingsInput {
  effort: string;
  speed: string;
  plansDirectory: string;
}

export interface CreateTimeQueryPieces {
  /** Present only when at least one key is set, so an empty object never masks the SDK defaults. */
  settings?: CreateTimeSettings;
  /** `max` cannot be persisted in settings; it is passed as the Query's own `effort` option. */
  effort?: EffortLevel;
}

const PERSISTABLE_EFFORTS: ReadonlySet<string> = new Set(['low', 'medium', 'high', 'xhigh']);

export function createTimeQueryPieces({
  effort,
  speed,
  plansDirectory,
}: CreateTimeSettingsInput): CreateTimeQueryPieces {
  const settings: CreateTimeSettings = {};
  const plans = plansDirectory.trim();
  if (plans) settings.plansDirectory = plans;
  if (speed === 'fast' || speed === 'standard') settings.fastMode = speed === 'fast';
  const level = effort.trim();
  if (PERSISTABLE_EFFORTS.has(level)) settings.effortLevel = level as CreateTimeSettings['effortLevel'];
  return {
    ...(Object.keys(settings).length > 0 ? { settings } : {}),
    ...(level === 'max' ? { effort: 'max' } : {}),
  };
}

import { z } from 'zod';
import { flag, nameList, requiredText, skippable, stringMap, text, withoutUndefined } from './fields.ts';

/** The effort levels Claude Code takes (`max` only for the session, never persisted in settings files). */
export const effortLevels = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
export type EffortLevel = (typeof effortLevels)[number];

const effortLevelSet: ReadonlySet<string> = new Set(effortLevels);

/** Empty means "not set"; anything else must be one of `effortLevels`. */
export function isEffortLevelOrEmpty(value: string): boolean {
  return value === '' || effortLevelSet.has(value);
}

const effortError = (field: string) => `${field} must be one of ${effortLevels.join(', ')}`;

const sessionSettingsFields = z.object({
  model: text(),
  permissionModeId: text(),
  planMode: flag(),
  effort: text(),
  /** Older hosts send `reasoningEffort`; it fills `effort` when that is empty. */
  reasoningEffort: text(),
  speed: text(),
});

export const sessionSettingsSchema = sessionSettingsFields
  .catch(() => sessionSettingsFields.parse({}))
  .default(() => sessionSettingsFields.parse({}))
  .transform(({ reasoningEffort, ...settings }) => ({ ...settings, effort: settings.effort || reasoningEffort }));

export type SessionSettings = z.output<typeof sessionSettingsSchema>;

export const resumeCursorInputSchema = z
  .object({
    kind: text(),
    version: z.number().catch(0).default(0),
    resume: text(),
    resumeSessionAt: text(),
    turnCount: z.number().int().nonnegative().catch(0).default(0),
  })
  .optional()
  .catch(undefined);

export type ResumeCursorInput = NonNullable<z.output<typeof resumeCursorInputSchema>>;

const localPluginSchema = z.object({
  type: z.literal('local'),
  path: z.string().trim().min(1),
  skipMcpDiscovery: z.boolean().optional(),
});

export type LocalPlugin = z.output<typeof localPluginSchema>;

/** Plugin entries that are not well-formed local plugins are skipped; absent reads as undefined. */
const pluginList = () =>
  z
    .array(skippable(localPluginSchema))
    .optional()
    .catch(undefined)
    .transform((items) => items?.filter((item) => item !== undefined));

/** CLI passthrough flags: string or null (a bare flag) values survive; absent reads as undefined. */
const extraArgs = () =>
  z
    .record(z.string(), skippable(z.string().nullable()))
    .optional()
    .catch(undefined)
    .transform((entries) => (entries === undefined ? undefined : withoutUndefined(entries)));

const toolsOption = () =>
  z
    .union([z.array(z.string()), z.object({ type: z.literal('preset'), preset: z.literal('claude_code') })])
    .optional()
    .catch(undefined);

export const startPayloadSchema = z
  .object({
    agentSessionId: requiredText('start requires agentSessionId'),
    /** Empty: the sidecar allocates a random UUID. */
    providerSessionId: text(),
    /** Empty: the sidecar's own working directory. */
    cwd: text(),
    env: stringMap(),
    restore: flag(),
    permissionModeId: text(),
    settings: sessionSettingsSchema,
    /** Preferred over `settings.effort`. */
    effort: text(),
    resumeCursor: resumeCursorInputSchema,
    systemPromptAppend: text(),
    planModeInstructions: text(),
    allowedTools: nameList(),
    disallowedTools: nameList(),
    plugins: pluginList(),
    extraArgs: extraArgs(),
    tools: toolsOption(),
  })
  // An effort Claude Code cannot run is a clear error at start, as it is for apply_settings.
  .superRefine((payload, context) => {
    if (!isEffortLevelOrEmpty(payload.effort)) {
      context.addIssue({ code: 'custom', path: ['effort'], message: effortError('start effort') });
    } else if (!isEffortLevelOrEmpty(payload.settings.effort)) {
      context.addIssue({ code: 'custom', path: ['settings', 'effort'], message: effortError('start settings.effort') });
    }
  });

export type StartPayload = z.output<typeof startPayloadSchema>;

const optionalSetting = <T extends z.ZodType>(schema: T) => schema.optional();

/** Only keys that are present are applied; a present key with the wrong type is an error, never ignored. */
export const applySettingsPayloadSchema = z.object({
  agentSessionId: requiredText('apply_settings requires agentSessionId'),
  planMode: optionalSetting(z.boolean({ error: 'apply_settings planMode must be a boolean' })),
  permissionMode: optionalSetting(z.string({ error: 'apply_settings permissionMode must be a string' }).trim()),
  model: optionalSetting(z.string({ error: 'apply_settings model must be a string' }).trim()),
  effort: optionalSetting(
    z
      .string({ error: 'apply_settings effort must be a string' })
      .trim()
      .refine(isEffortLevelOrEmpty, { error: effortError('apply_settings effort') }),
  ),
  speed: optionalSetting(z.enum(['fast', 'standard'], { error: 'apply_settings speed must be fast or standard' })),
});

export type ApplySettingsPayload = z.output<typeof applySettingsPayloadSchema>;

/** Tolerant like the original: closing an unknown (or unnamed) session still succeeds. */
export const closePayloadSchema = z.object({
  agentSessionId: text(),
});

export type ClosePayload = z.output<typeof closePayloadSchema>;

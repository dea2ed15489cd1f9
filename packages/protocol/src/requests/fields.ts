import { z } from 'zod';

/*
 * Field readers shared by the request payload schemas. They mirror the original's lenient
 * "string or empty" readers: a wrong type reads as the empty value instead of failing, so
 * every payload the original accepted is still accepted. Only fields without which a request
 * cannot mean anything are required, and those fail with a message naming the field.
 */

/** Trimmed string; absent or not a string reads as "". */
export const text = () => z.string().trim().catch('').default('');

/** Trimmed, non-empty string; anything else fails with `message`. */
export const requiredText = (message: string) => z.string({ error: message }).trim().min(1, { error: message });

/** Strictly `true`; anything else reads as false. */
export const flag = () => z.boolean().catch(false).default(false);

/** A number; absent or not a finite number reads as 0. */
export const count = () => z.number().catch(0).default(0);

/** A JSON object; absent or not an object reads as {}. */
export const jsonObject = () => z.record(z.string(), z.unknown()).catch({}).default({});

/** An item of a lenient list or map: a value that does not fit reads as undefined and is skipped. */
export const skippable = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

/** Environment map: only string values survive, as in the original. */
export const stringMap = () =>
  z
    .record(z.string(), skippable(z.string()))
    .catch({})
    .default({})
    .transform((entries) => withoutUndefined(entries));

/** List of names: non-string items are skipped; absent or not an array reads as undefined (option not set). */
export const nameList = () =>
  z
    .array(skippable(z.string().trim()))
    .optional()
    .catch(undefined)
    .transform((items) => items?.filter((item) => item !== undefined));

export const promptBlockSchema = z.looseObject({ type: z.string() });
export type PromptBlock = z.output<typeof promptBlockSchema>;

/** Prompt content blocks (text, image, …); items that are not objects with a string `type` are skipped. */
export const promptContent = () =>
  z
    .array(skippable(promptBlockSchema))
    .catch([])
    .default([])
    .transform((items) => items.filter((item) => item !== undefined));

export function withoutUndefined<V>(entries: Record<string, V | undefined>): Record<string, V> {
  const kept: Record<string, V> = {};
  for (const [key, value] of Object.entries(entries)) if (value !== undefined) kept[key] = value;
  return kept;
}

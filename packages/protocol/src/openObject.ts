import { z } from 'zod';

/**
 * An object schema that lets unknown keys through at runtime (a newer sidecar may add fields)
 * but types as the known shape only. `z.looseObject` would add `[key: string]: unknown` to the
 * type, which turns off excess-property checks on emitted payloads and rejects interfaces.
 */
export function openObject<Shape extends z.core.$ZodLooseShape>(shape: Shape): z.ZodObject<Shape, z.core.$strip> {
  return z.looseObject(shape) as unknown as z.ZodObject<Shape, z.core.$strip>;
}

import { HostApiError } from '@outrigger/host-api';

/**
 * The files a refused merge names: a `409 conflict` carries one detail per conflicting file, its `path`.
 * Empty for any other error.
 */
export function conflictingPaths(error: unknown): string[] {
  if (!(error instanceof HostApiError) || error.code !== 'conflict') return [];
  return error.details.flatMap((detail) => (detail.path === '' ? [] : [detail.path]));
}

/** Whether a refusal is about one field of the request (a `details` entry whose `path` names it). */
export function isAboutField(error: unknown, field: string): boolean {
  return error instanceof HostApiError && error.details.some((detail) => detail.path === field);
}

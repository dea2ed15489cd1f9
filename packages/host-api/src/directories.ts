import { z } from 'zod';
import { hostLimits } from './limits.ts';

/*
 * Picking a session's working directory: the directories past sessions ran in, and completion of a typed
 * path. Both list only directories a session may use (under the `--allow-root` directories, or, on a host
 * without any, under the user's home directory and the default directory), decided on the resolved real path.
 */

export const recentDirectorySchema = z.object({
  /** As stored with the session (a resolved, absolute path); only directories that still exist. */
  path: z.string(),
  /** The newest activity of a session there. */
  lastUsedAt: z.number(),
});
export type RecentDirectory = z.output<typeof recentDirectorySchema>;

export const recentDirectoriesSchema = z.object({
  /** Most recently used first, at most `hostLimits.recentDirectoriesMax`. */
  directories: z.array(recentDirectorySchema),
});
export type RecentDirectories = z.output<typeof recentDirectoriesSchema>;

export const directoryCompletionQuerySchema = z.strictObject({
  /**
   * What the person typed: an absolute path or one starting with `~` (the host's home). Up to the last `/`
   * names the directory to list; the rest is the start of the names to offer (empty: all of them).
   */
  prefix: z.string().min(1).max(hostLimits.maxCwdChars),
});

export const directoryEntrySchema = z.object({
  name: z.string(),
  /** The typed directory (with `~` expanded) joined with `name`, ending in `/`: what the field completes to. */
  path: z.string(),
});
export type DirectoryEntry = z.output<typeof directoryEntrySchema>;

export const directoryCompletionSchema = z.object({
  /** The directory listed, resolved. */
  directory: z.string(),
  /** By name; hidden ones only when the typed name starts with `.`. */
  entries: z.array(directoryEntrySchema),
  /** More matched than `hostLimits.directoryEntriesMax`. */
  truncated: z.boolean(),
});
export type DirectoryCompletion = z.output<typeof directoryCompletionSchema>;

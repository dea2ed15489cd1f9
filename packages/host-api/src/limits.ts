/**
 * Size limits of the HTTP API. The host enforces them before parsing (body bytes) and in the schemas
 * (fields); the web UI reads the same numbers to refuse an oversized attachment before uploading it.
 */
export const hostLimits = {
  /** Any JSON body except a turn's. */
  maxBodyBytes: 1024 * 1024,
  /** A turn body, which may carry base64 images. */
  maxTurnBodyBytes: 48 * 1024 * 1024,
  maxPromptChars: 200_000,
  /** Decoded bytes of one image. */
  maxImageBytes: 5 * 1024 * 1024,
  maxImagesPerTurn: 8,
  maxTitleChars: 200,
  maxCwdChars: 4096,
  /** A path inside a session's directory (a diff's file). */
  maxPathChars: 4096,
  /** A file patch longer than this is cut (`truncated: true`); the diff's counts stay whole. */
  maxPatchChars: 512 * 1024,
  maxModelChars: 200,
  /** A session search (`GET /api/search/sessions?q=`). */
  maxSearchChars: 200,
  searchResultsMax: 50,
  /** Recent working directories (`GET /api/directories/recent`). */
  recentDirectoriesMax: 12,
  /** Directory completion (`GET /api/directories`): entries listed at most. */
  directoryEntriesMax: 100,
  /** File completion (`GET /api/sessions/:id/files`): entries offered at most. */
  fileCompletionsMax: 50,
  maxClientMessageIdChars: 200,
  maxTaskTitleChars: 500,
  maxTaskDescriptionChars: 10_000,
  maxDenyMessageChars: 10_000,
  /** Interaction answer payloads (question answers, notes). */
  maxAnswerPayloadBytes: 256 * 1024,
  /** Cancel budgets are positive integers up to this many milliseconds. */
  maxCancelBudgetMs: 600_000,
  messagesPageDefault: 100,
  messagesPageMax: 500,
  /**
   * Tool results longer than this are cut in message pages, snapshots and SSE payloads, with
   * `truncated: true`; `GET /api/sessions/:id/tool-results/:tool_use_id` serves the whole result.
   */
  toolResultPreviewChars: 16_000,
} as const;

export const imageMediaTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMediaType = (typeof imageMediaTypes)[number];

/** Heartbeat cadence of every SSE stream, and how long a client waits before it calls a stream dead. */
export const sseTiming = {
  heartbeatMs: 15_000,
  deadAfterMs: 45_000,
} as const;

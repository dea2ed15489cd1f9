/**
 * The wire schemas alone, without transports or the client: safe to import in a browser bundle
 * (`@outrigger/protocol/schemas`). The host's HTTP contract reuses these shapes.
 */
export * from './events/assistant.ts';
export * from './events/background.ts';
export * from './events/compaction.ts';
export * from './events/goals.ts';
export * from './events/interactions.ts';
export {
  type ConfigOption,
  configOptionSchema,
  configOptionValueSchema,
  type ResumeCursor,
  resumeCursorSchema,
  type SlashCommand,
  slashCommandSchema,
} from './events/session.ts';
export * from './events/tools.ts';
export * from './events/turn.ts';
export * from './events/usage.ts';
export * from './results.ts';
export { PROTOCOL_VERSION } from './version.ts';

export { ListenerErrorHooks, ListenerSet } from './client/listenerSet.ts';
export {
  type RequestOptions,
  SidecarClient,
  type SidecarClientOptions,
  type SidecarCloseReason,
  type SidecarListenerKind,
  type SidecarProtocolError,
} from './client/sidecarClient.ts';
export { SidecarRequestError, type SidecarRequestFailure } from './client/sidecarRequestError.ts';
export { type ErrorResponseExtra, encodeError, encodeEvent, encodeOk, encodeRequest } from './encode.ts';
export {
  type ParsedSidecarLine,
  parseSidecarLine,
  requestEnvelopeSchema,
  type SidecarMessage,
  sidecarMessageSchema,
} from './envelope.ts';
export * from './events/assistant.ts';
export * from './events/background.ts';
export * from './events/compaction.ts';
export * from './events/goals.ts';
export {
  type EmitEvent,
  eventPayloadSchemas,
  eventSessionId,
  isSidecarEventType,
  type SidecarEvent,
  type SidecarEventPayload,
  type SidecarEventType,
  sidecarEventTypes,
} from './events/index.ts';
export * from './events/interactions.ts';
export {
  type ConfigOption,
  commandsUpdatedSchema,
  configOptionSchema,
  configOptionValueSchema,
  type FastModeState,
  fastModeStates,
  type ResumeCursor,
  resumeCursorSchema,
  type SessionSnapshot,
  type SlashCommand,
  type Speed,
  sdkLifecycleObservedSchema,
  sessionSnapshotSchema,
  sessionTitleUpdatedSchema,
  slashCommandSchema,
  speeds,
  speedUpdatedSchema,
} from './events/session.ts';
export * from './events/tools.ts';
export * from './events/turn.ts';
export * from './events/usage.ts';
export { MAX_REQUEST_NESTING, nestsDeeperThan } from './jsonNesting.ts';
export { isPlainObject } from './plainObject.ts';
export {
  isPositiveSafeInteger,
  type ParsedRequestLine,
  parseRequestLine,
  parseRequestValue,
  type SidecarRequest,
} from './requestLine.ts';
export { type PromptBlock, promptBlockSchema } from './requests/fields.ts';
export {
  type ParsedRequestPayload,
  parseRequestPayload,
  type RequestPayload,
  type RequestPayloadInput,
  requestPayloadSchemas,
} from './requests/index.ts';
export * from './requests/interactive.ts';
export {
  type ApplySettingsPayload,
  applySettingsPayloadSchema,
  type ClosePayload,
  closePayloadSchema,
  type EffortLevel,
  effortLevels,
  type LocalPlugin,
  type ResumeCursorInput,
  resumeCursorInputSchema,
  type SessionSettings,
  type StartPayload,
  sessionSettingsSchema,
  startPayloadSchema,
} from './requests/session.ts';
export * from './requests/stateless.ts';
export * from './requests/turn.ts';
export { isRequestType, type RequestType, requestTypes, statelessRequestTypes } from './requestTypes.ts';
export * from './results.ts';
export { LineSplitter, type LineSplitterOptions } from './transport/lineSplitter.ts';
export {
  DEFAULT_MAX_LINE_BYTES,
  type LineHandlers,
  type LineTransport,
  type LineTransportEnd,
} from './transport/lineTransport.ts';
export { createLinkedLineTransports } from './transport/linkedLineTransports.ts';
export { createStdioLineTransport, type StdioLineTransportOptions } from './transport/stdioLineTransport.ts';
export { PROTOCOL_VERSION, type ProtocolVersion } from './version.ts';

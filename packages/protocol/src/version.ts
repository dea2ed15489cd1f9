/** The one protocol version both sides speak; any other value is rejected, never guessed at. */
export const PROTOCOL_VERSION = 10;
export type ProtocolVersion = typeof PROTOCOL_VERSION;

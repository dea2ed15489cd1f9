import { echoedValue } from './echoedValue.ts';

/** The one protocol version both sides speak; any other value is rejected, never guessed at. */
export const PROTOCOL_VERSION = 10;
export type ProtocolVersion = typeof PROTOCOL_VERSION;

/** The one message for a line at any other version; `missing` when absent or null. */
export function unsupportedVersionError(version: unknown): string {
  return `unsupported sidecar protocol version ${version === undefined || version === null ? 'missing' : echoedValue(version)}`;
}

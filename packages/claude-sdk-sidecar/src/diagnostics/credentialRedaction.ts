import type { EmitEvent } from '@outrigger/protocol';

/*
 * An error text the sidecar publishes may quote what its source was given: an API gateway that repeats the
 * key it refused, an SDK error that prints its request. The credentials the sidecar knows of (its own
 * environment and the settings files' `env`, as the Query sees them) are cut out of every such text before it
 * leaves the process, and so is anything shaped like an Anthropic key.
 */

export const REDACTED_CREDENTIAL = '[redacted credential]';

/** Variables whose value is a secret by their name. */
const CREDENTIAL_NAME = /(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;
/** Shorter values are too likely to occur by chance ("1", "true") to be cut out of text. */
const MIN_CREDENTIAL_LENGTH = 8;
/** Anthropic API keys and OAuth tokens, whoever holds them. */
const ANTHROPIC_KEY = /sk-ant-[A-Za-z0-9_-]{8,}/g;

/** The values of `env` that are credentials, longest first (so one that contains another goes whole). */
export function credentialValues(env: Readonly<Record<string, string | undefined>>): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !CREDENTIAL_NAME.test(name)) continue;
    const trimmed = value.trim();
    if (trimmed.length >= MIN_CREDENTIAL_LENGTH) values.add(trimmed);
  }
  return [...values].sort((a, b) => b.length - a.length);
}

/** `text` with every known credential and every Anthropic-key-shaped string replaced. */
export function redactCredentials(text: string, credentials: readonly string[] = []): string {
  let redacted = text;
  for (const credential of credentials) {
    if (redacted.includes(credential)) redacted = redacted.replaceAll(credential, REDACTED_CREDENTIAL);
  }
  return redacted.replace(ANTHROPIC_KEY, REDACTED_CREDENTIAL);
}

/**
 * The failure texts that come from elsewhere (Claude Code, the API, the SDK) and may quote anything: the
 * `error` of failure events, and the content of a failed assistant message, which is where Claude Code puts
 * an API error's text (`API Error: 500 …`). Model text and tool output are the user's data and pass as they are.
 */
const FAILURE_TEXT_FIELD: Readonly<Record<string, string>> = {
  turn_failed: 'error',
  turn_canceled: 'error',
  error: 'error',
  assistant_failed: 'content',
};

/** `emit`, with the credentials of `credentials()` cut out of the failure texts of events. */
export function redactingEmit(emit: EmitEvent, credentials: () => readonly string[]): EmitEvent {
  return (type, payload) => {
    const field = FAILURE_TEXT_FIELD[type];
    const text = field === undefined ? undefined : (payload as Record<string, unknown>)[field];
    if (field !== undefined && typeof text === 'string') {
      const redacted = redactCredentials(text, credentials());
      if (redacted !== text) {
        emit(type, { ...payload, [field]: redacted });
        return;
      }
    }
    emit(type, payload);
  };
}

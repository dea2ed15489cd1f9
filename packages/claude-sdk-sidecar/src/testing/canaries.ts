/*
 * ARCHITECTURE decision 7: prompts, tool input and credentials never reach stderr, logs, diagnostics or
 * error messages. Each canary stands for one kind of secret; tests plant them where a user's would be and
 * look for them where they must not be. Every canary carries the marker, so a fragment of one is found too.
 */

export const CANARY_MARKER = 'CANARY';

export const canaries = {
  prompt: 'CANARY_PROMPT_7f3a please refactor the billing module',
  toolInput: 'CANARY_TOOL_INPUT_91bc rm -rf ./secrets',
  /** An API key as the environment holds it. */
  credential: 'sk-ant-api03-CANARY_CREDENTIAL_55de',
  /** A credential in the `env` of a Claude settings file. */
  settingsCredential: 'sk-ant-api03-CANARY_SETTINGS_CREDENTIAL_c0de',
} as const;

/** The canaries (and the bare marker) found in `text`; empty when it is clean. */
export function canariesIn(text: string): string[] {
  const found: string[] = Object.values(canaries).filter((canary) => text.includes(canary));
  if (found.length === 0 && text.includes(CANARY_MARKER)) found.push(CANARY_MARKER);
  return found;
}

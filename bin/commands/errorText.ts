/** What went wrong, for one line of the chat: the message of an Error, else the thrown value as text. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/*
 * The JSON text of a stored event's payload, made once per event. The store already serializes each
 * payload to write it, and the hub hands the SAME event object to every stream, so an SSE writer that
 * asks here writes `data: <json>` for ten clients at the cost of one `JSON.stringify`.
 */

const texts = new WeakMap<object, string>();

/** `JSON.stringify(event.data)`, cached per payload object. Payloads are never mutated after commit. */
export function eventDataJson(event: { readonly data: object }): string {
  let text = texts.get(event.data);
  if (text === undefined) {
    text = JSON.stringify(event.data);
    texts.set(event.data, text);
  }
  return text;
}

/** For the store: the text it wrote for `data`, so nobody serializes it again. */
export function rememberEventDataJson(data: object, text: string): void {
  texts.set(data, text);
}

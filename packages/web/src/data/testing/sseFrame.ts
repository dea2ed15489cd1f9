/** One stream event as the host writes it on the wire: its seq as the SSE id, its type as the SSE event. */
export function sseFrame<Event extends { readonly type: string; readonly data: { readonly seq: number } }>(
  event: Event,
): string {
  return `id: ${event.data.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/** An `outside_changes` notice read back into its parts: the sentence, what was left out, the messages. */
export interface OutsideChanges {
  lead: string;
  /** `… 3 earlier messages not shown`, or null. */
  omitted: string | null;
  messages: { role: 'user' | 'assistant'; text: string }[];
}

/**
 * The host writes the notice as paragraphs: a sentence saying how many messages came, perhaps a line saying
 * how many earlier ones are not shown, then each message, a prompt marked `› `. Paragraphs after a prompt that
 * are not a prompt are the answer (an answer's own blank lines keep it one message).
 */
export function outsideChangesOf(text: string): OutsideChanges {
  const paragraphs = text.split('\n\n');
  const lead = paragraphs.shift() ?? '';
  let omitted: string | null = null;
  if (paragraphs[0]?.startsWith('… ')) omitted = paragraphs.shift()!.slice(2);
  const messages: OutsideChanges['messages'] = [];
  for (const paragraph of paragraphs) {
    if (paragraph.startsWith('› ')) {
      messages.push({ role: 'user', text: paragraph.slice(2) });
      continue;
    }
    const last = messages.at(-1);
    if (last?.role === 'assistant') last.text = `${last.text}\n\n${paragraph}`;
    else messages.push({ role: 'assistant', text: paragraph });
  }
  return { lead, omitted, messages };
}

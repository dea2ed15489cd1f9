import { hostLimits, type SessionSearch, type SessionSummary } from '@outrigger/host-api';
import type { HostStoreReader, SessionListFilter } from '../store/hostStore.ts';
import type { SessionRecord } from '../store/records.ts';

/** How much of a prompt is shown around the match. */
const SNIPPET_CHARS = 120;

/**
 * `GET /api/search/sessions`: the store finds the sessions whose title or a prompt holds the text (one
 * query, no index: a LIKE over a few hundred sessions' prompts takes milliseconds, see the store's test);
 * this says where each matched, a prompt cut around the match.
 */
export async function searchSessions(
  store: Pick<HostStoreReader, 'searchSessions'>,
  summary: (session: SessionRecord) => SessionSummary,
  text: string,
  filter: SessionListFilter,
): Promise<SessionSearch> {
  const limit = hostLimits.searchResultsMax;
  const hits = await store.searchSessions(text, filter, limit + 1);
  return {
    results: hits.slice(0, limit).map((hit) => ({
      session: summary(hit.session),
      match:
        hit.prompt === null
          ? { field: 'title', text: hit.session.title, turnId: null }
          : { field: 'prompt', text: snippetAround(hit.prompt.text, text), turnId: hit.prompt.turnId },
    })),
    truncated: hits.length > limit,
  };
}

/** `text` on one line, cut to `width` characters around the first match of `needle` (… where cut). */
export function snippetAround(text: string, needle: string, width = SNIPPET_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= width) return flat;
  const at = flat.toLowerCase().indexOf(needle.toLowerCase());
  const centered = at < 0 ? 0 : at - Math.floor((width - needle.length) / 2);
  const start = Math.max(0, Math.min(centered, flat.length - width));
  const end = start + width;
  return `${start > 0 ? '…' : ''}${flat.slice(start, end).trim()}${end < flat.length ? '…' : ''}`;
}

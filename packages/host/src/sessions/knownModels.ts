import { type ModelCatalogue, modelOptionOf } from '@outrigger/host-api';
import type { SessionRecord } from '../store/records.ts';

/**
 * The models to offer a session that has not started: what Claude Code reported to the most recently changed
 * session that reported any (Claude Code lists the same models for every session of one installation and
 * account). Empty until a session has started; nothing is made up.
 */
export function knownModels(sessions: readonly SessionRecord[]): ModelCatalogue {
  let newest: { session: SessionRecord; models: ModelCatalogue['models'] } | undefined;
  for (const session of sessions) {
    const option = modelOptionOf(session.configOptions);
    if (option === undefined || option.options.length === 0) continue;
    if (newest === undefined || session.updatedAt > newest.session.updatedAt)
      newest = { session, models: option.options };
  }
  if (newest === undefined) return { models: [], reportedAt: null };
  return {
    models: newest.models.map(({ value, name, description }) => ({
      value,
      name,
      ...(description === undefined ? {} : { description }),
    })),
    reportedAt: newest.session.updatedAt,
  };
}

import fc from 'fast-check';
import { type RequestType, requestTypes } from '../requestTypes.ts';
import {
  brokenJsonText,
  deepJsonText,
  fieldsObjectText,
  hostileJsonText,
  keyText,
  numberText,
  scalarText,
  stringText,
} from './hostileJson.ts';
import { requestFieldNames } from './requestFields.ts';

/*
 * Request lines as a host, a broken host or an attacker might write them, for the request-line fuzz and the
 * sidecar server fuzz: mostly envelopes of known types whose fields are plausible (a small pool of ids, so
 * requests meet the sessions and turns earlier ones made) or hostile, in any order, maybe duplicated.
 */

/** Values a field plausibly holds: a small pool of ids so requests meet each other, budgets, flags, blocks. */
/**
 * Stand for the ids of the interaction asked last; a server fuzz swaps in the real ones before it writes
 * the line, so answers reach a pending interaction.
 */
export const LAST_INTERACTION = {
  agentSessionId: '@last-interaction-session',
  turnId: '@last-interaction-turn',
  requestId: '@last-interaction-request',
} as const;

export const goodFieldValue = (field: string): fc.Arbitrary<string> => {
  // A small pool of ids, so requests meet the sessions, turns and tasks earlier ones made.
  if (field === 'agentSessionId')
    return fc.oneof({ weight: 6, arbitrary: fc.constantFrom('"s1"', '"s2"') }, { weight: 1, arbitrary: stringText });
  if (field === 'turnId')
    return fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('"t1"', '"t2"', '"t3"') },
      { weight: 1, arbitrary: stringText },
    );
  if (field === 'prompt') {
    // The test driver asks an approval, a question or a plan for these words.
    return fc.oneof(fc.constantFrom('"approval please"', '"ask-user now"', '"exit-plan"', '"hello"'), stringText);
  }
  if (field === 'action' || field === 'optionId') {
    return fc.oneof(
      fc.constantFrom('"allow"', '"deny"', '"allow_always"', '"accept"', '"reject"', '"cancel"'),
      stringText,
    );
  }
  if (/TimeoutMs$/.test(field)) return fc.oneof(fc.integer({ min: 1, max: 60_000 }).map(String), numberText);
  if (/^(restore|planMode)$/.test(field)) return fc.constantFrom('true', 'false');
  if (field === 'content') return fc.constant('[{"type":"text","text":"hi"},{"type":"image"},7,{"__proto__":{}}]');
  if (field === 'env') return fc.constant('{"A":"1","__proto__":{"polluted":"yes"},"constructor":"x"}');
  if (field === 'payload' || field === 'settings' || field === 'resumeCursor') return hostileJsonText;
  return fc.oneof(fc.constantFrom('"s1"', '"t1"', '"r1"', '"p1"', '" "', '""'), stringText);
};

const versionText = fc.oneof({ weight: 15, arbitrary: fc.constant('10') }, { weight: 1, arbitrary: hostileJsonText });
const typeText = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...requestTypes).map((type) => JSON.stringify(type)) },
  { weight: 1, arbitrary: hostileJsonText },
);
const idText = fc.oneof(
  { weight: 10, arbitrary: fc.string({ minLength: 1, maxLength: 12 }).map((id) => JSON.stringify(`r-${id}`)) },
  { weight: 1, arbitrary: hostileJsonText },
);

/** Sessions must exist and turns run for the later requests to reach them: start and exec come more often, close less. */
const typeWeights: Partial<Record<RequestType, number>> = { start: 4, exec: 6, submit_interactive: 3, close: 1 };
const requestType: fc.Arbitrary<RequestType> = fc.oneof(
  ...requestTypes.map((type) => ({ weight: typeWeights[type] ?? 2, arbitrary: fc.constant(type) })),
);

/**
 * A request envelope: the known fields in any order, now and then absent or hostile (rarely enough that most
 * envelopes reach their handler; the other line kinds cover broken envelopes).
 */
export const envelopeText: fc.Arbitrary<string> = requestType
  .chain((type) =>
    fc.tuple(
      fc.option(versionText, { freq: 30 }),
      fc.option(
        fc.oneof({ weight: 15, arbitrary: fc.constant(JSON.stringify(type)) }, { weight: 1, arbitrary: typeText }),
        { freq: 30 },
      ),
      fc.option(idText),
      fc.option(
        fc.oneof(
          { weight: 10, arbitrary: fieldsObjectText(requestFieldNames(type), goodFieldValue) },
          { weight: 1, arbitrary: hostileJsonText },
        ),
        { freq: 20 },
      ),
      fc.array(fc.tuple(keyText, hostileJsonText), { maxLength: 2 }),
    ),
  )
  .chain(([version, type, id, payload, extra]) => {
    const entries: string[] = [];
    if (version !== null) entries.push(`"version":${version}`);
    if (type !== null) entries.push(`"type":${type}`);
    if (id !== null) entries.push(`"id":${id}`);
    if (payload !== null) entries.push(`"payload":${payload}`);
    for (const [key, value] of extra) entries.push(`${key}:${value}`);
    return fc.shuffledSubarray(entries, { minLength: entries.length }).map((shuffled) => `{${shuffled.join(',')}}`);
  });

/** What a line may hold: mostly envelopes, also any JSON, broken JSON, deep JSON, whitespace. */
export const requestLineText: fc.Arbitrary<string> = fc.oneof(
  { weight: 14, arbitrary: envelopeText },
  { weight: 2, arbitrary: hostileJsonText },
  { weight: 2, arbitrary: brokenJsonText },
  { weight: 1, arbitrary: deepJsonText },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '\t\r', '\u00a0', '\ufeff{"version":10,"type":"close"}') },
  { weight: 1, arbitrary: scalarText },
);

/** An answer to the interaction asked last (its ids as LAST_INTERACTION placeholders) with hostile content. */
export const interactionAnswerText: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('submit_interactive', 'interactive_disposition'),
    fc.string({ minLength: 1, maxLength: 8 }),
    goodFieldValue('action'),
    goodFieldValue('optionId'),
    fc.oneof(
      hostileJsonText,
      fc.constantFrom('{"answers":{"Pick one":"A"}}', '{"message":"no"}', '{"__proto__":{"behavior":"allow"}}'),
    ),
  )
  .map(
    ([type, id, action, optionId, payload]) =>
      `{"version":10,"id":${JSON.stringify(`a-${id}`)},"type":"${type}","payload":{"agentSessionId":"${LAST_INTERACTION.agentSessionId}","turnId":"${LAST_INTERACTION.turnId}","requestId":"${LAST_INTERACTION.requestId}","action":${action},"optionId":${optionId},"payload":${payload}}}`,
  );

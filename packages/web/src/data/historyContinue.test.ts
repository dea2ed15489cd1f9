import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HostApiError } from '@outrigger/host-api';
import { continueOffer, offerAfterRefusal } from './historyContinue.ts';
import { claudeId, historySession } from './testing/historyFixtures.ts';

test('a quiet session in an existing directory can be resumed or forked', () => {
  assert.deepEqual(continueOffer(historySession({ claudeSessionId: claudeId(1) })), { kind: 'ready' });
});

test('one written in the last minutes may be open in a terminal: in use', () => {
  assert.deepEqual(continueOffer(historySession({ claudeSessionId: claudeId(1), recentlyActive: true })), {
    kind: 'in_use',
  });
});

test('one already continued links to that session, before anything else is said', () => {
  assert.deepEqual(
    continueOffer(
      historySession({
        claudeSessionId: claudeId(1),
        outriggerSessionId: 's9',
        recentlyActive: true,
        cwdExists: false,
      }),
    ),
    { kind: 'continued', sessionId: 's9' },
  );
});

test('one whose directory is gone cannot be continued, and says why', () => {
  const offer = continueOffer(historySession({ claudeSessionId: claudeId(1), cwd: '/work/old', cwdExists: false }));
  assert.equal(offer.kind, 'gone');
  assert.match(offer.kind === 'gone' ? offer.reason : '', /\/work\/old no longer exists/);
});

test('the refusals of the continue route lead to the same offers; any other failure to none', () => {
  assert.deepEqual(offerAfterRefusal(new HostApiError(409, 'history_in_use', 'in use')), { kind: 'in_use' });
  assert.deepEqual(offerAfterRefusal(new HostApiError(409, 'already_continued', 'continued', [], 's5')), {
    kind: 'continued',
    sessionId: 's5',
  });
  assert.equal(offerAfterRefusal(new HostApiError(409, 'already_continued', 'continued')), null, 'no id: an error');
  assert.equal(offerAfterRefusal(new HostApiError(404, 'not_found', 'gone')), null);
  assert.equal(offerAfterRefusal(new Error('network')), null);
});

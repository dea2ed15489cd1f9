import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forkResumeEnv, RESUME_SOURCE_ALIVE_VARIABLE } from './forkResumeEnv.ts';

test('a fork resumes with its own session id and the time it was made; any other session with nothing', () => {
  const createdAt = Date.UTC(2026, 11, 7, 11, 41, 54, 604);
  assert.deepEqual(
    forkResumeEnv({ forkedFrom: { sessionId: 's1', turnId: 't1' }, createdAt, providerSessionId: 'child-prov' }),
    { [RESUME_SOURCE_ALIVE_VARIABLE]: 'child-prov|2026-12-07T11:41:54.604Z' },
  );
  assert.deepEqual(forkResumeEnv({ forkedFrom: null, createdAt, providerSessionId: 'prov' }), {});
  assert.deepEqual(forkResumeEnv({ providerSessionId: 'prov' }), {}, 'a new session (no record yet)');
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InteractionSupersededError, InteractiveRegistry } from './interactiveRegistry.ts';
import { within } from './testSupport.ts';

describe('InteractiveRegistry', () => {
  it('resolves the SDK promise with the answer and reports answered', async () => {
    const registry = new InteractiveRegistry();
    const answer = registry.register('turn-1', 'req-1');
    assert.deepEqual(registry.disposition('turn-1', 'req-1', 'allow', 'allow', {}), { disposition: 'pending' });
    assert.deepEqual(registry.submit('turn-1', 'req-1', 'allow', 'allow', { note: 'ok' }), {
      disposition: 'answered',
      replayed: false,
    });
    assert.deepEqual(await within(answer, 'the answer'), {
      action: 'allow',
      optionId: 'allow',
      payload: { note: 'ok' },
    });
    assert.equal(registry.pendingCount, 0);
  });

  it('reports an identical replay as answered+replayed and a different one as conflict', async () => {
    const registry = new InteractiveRegistry();
    const answer = registry.register(' turn-1 ', 'req-1');
    registry.submit('turn-1', 'req-1', 'allow', 'allow', { a: 1, b: { c: 2 } });
    await within(answer, 'the answer');
    // Same submission, other key order and untrimmed ids.
    assert.deepEqual(registry.submit('turn-1 ', ' req-1', 'allow', 'allow', { b: { c: 2 }, a: 1 }), {
      disposition: 'answered',
      replayed: true,
    });
    assert.deepEqual(registry.submit('turn-1', 'req-1', 'reject', 'reject', {}), { disposition: 'conflict' });
    assert.deepEqual(registry.submit('turn-1', 'req-1', 'allow', 'allow', { a: 1 }), { disposition: 'conflict' });
    assert.deepEqual(registry.disposition('turn-1', 'req-1', 'allow', 'allow', { a: 1, b: { c: 2 } }), {
      disposition: 'answered',
      replayed: true,
    });
    assert.deepEqual(registry.disposition('turn-1', 'req-1', 'allow', 'allow_always', { a: 1, b: { c: 2 } }), {
      disposition: 'conflict',
    });
  });

  it('resolves the SDK exactly once for concurrent duplicate submissions', async () => {
    const registry = new InteractiveRegistry();
    let resolutions = 0;
    const answer = registry.register('turn-1', 'req-1').then((submission) => {
      resolutions += 1;
      return submission;
    });
    const outcomes = await Promise.all(
      [1, 2, 3].map(async () => registry.submit('turn-1', 'req-1', 'allow', 'allow', {})),
    );
    await within(answer, 'the answer');
    assert.equal(resolutions, 1);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.replayed),
      [false, true, true],
    );
    assert.ok(outcomes.every((outcome) => outcome.disposition === 'answered'));
  });

  it('keys by turn as well as request id and reports unknown keys', () => {
    const registry = new InteractiveRegistry();
    void registry.register('turn-1', 'req-1');
    assert.deepEqual(registry.submit('turn-2', 'req-1', 'allow', 'allow', {}), { disposition: 'unknown' });
    assert.deepEqual(registry.disposition('turn-2', 'req-1', 'allow', 'allow', {}), { disposition: 'unknown' });
    assert.equal(registry.pendingCount, 1);
  });

  it('supersedes every pending request on rejectAll and reports superseded replays', async () => {
    const registry = new InteractiveRegistry();
    const first = registry.register('turn-1', 'req-1');
    const second = registry.register('turn-1', 'req-2');
    registry.rejectAll('Tool use aborted');
    await assert.rejects(within(first, 'the first rejection'), (error: unknown) => {
      assert.ok(error instanceof InteractionSupersededError);
      assert.equal(error.message, 'Tool use aborted');
      return true;
    });
    await assert.rejects(within(second, 'the second rejection'), InteractionSupersededError);
    assert.deepEqual(registry.submit('turn-1', 'req-1', 'allow', 'allow', {}), {
      disposition: 'superseded',
      replayed: true,
    });
    assert.deepEqual(registry.disposition('turn-1', 'req-2', 'reject', 'reject', {}), {
      disposition: 'superseded',
      replayed: true,
    });
    assert.equal(registry.pendingCount, 0);
  });

  it('supersedes one request when its SDK signal aborts, before or after registration', async () => {
    const registry = new InteractiveRegistry();
    const controller = new AbortController();
    const answer = registry.register('turn-1', 'req-1', controller.signal);
    const other = registry.register('turn-1', 'req-2');
    controller.abort();
    await assert.rejects(within(answer, 'the abort'), /Tool use aborted/);
    assert.deepEqual(registry.disposition('turn-1', 'req-1', 'allow', 'allow', {}), {
      disposition: 'superseded',
      replayed: true,
    });
    assert.deepEqual(registry.disposition('turn-1', 'req-2', 'allow', 'allow', {}), { disposition: 'pending' });
    registry.submit('turn-1', 'req-2', 'allow', 'allow', {});
    await within(other, 'the other answer');

    await assert.rejects(registry.register('turn-1', 'req-3', AbortSignal.abort()), InteractionSupersededError);
    assert.equal(registry.disposition('turn-1', 'req-3', 'allow', 'allow', {}).disposition, 'superseded');
  });

  it('refuses to register a key twice', async () => {
    const registry = new InteractiveRegistry();
    void registry.register('turn-1', 'req-1');
    await assert.rejects(registry.register('turn-1', 'req-1'), /already registered/);
  });

  it('evicts the oldest terminal entries first beyond its capacity', async () => {
    const registry = new InteractiveRegistry({ terminalCapacity: 2 });
    for (const requestId of ['req-1', 'req-2', 'req-3']) {
      const answer = registry.register('turn-1', requestId);
      registry.submit('turn-1', requestId, 'allow', 'allow', {});
      await within(answer, requestId);
    }
    assert.deepEqual(registry.submit('turn-1', 'req-1', 'allow', 'allow', {}), { disposition: 'unknown' });
    assert.equal(registry.submit('turn-1', 'req-2', 'allow', 'allow', {}).replayed, true);
    assert.equal(registry.submit('turn-1', 'req-3', 'allow', 'allow', {}).replayed, true);
  });
});

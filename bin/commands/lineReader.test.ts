import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineReader } from './lineReader.ts';

test('lines pushed before they are asked for wait in order', async () => {
  const reader = new LineReader();
  reader.push('one');
  reader.push('two');
  assert.equal(await reader.next(), 'one');
  assert.equal(await reader.next(), 'two');
});

test('a waiting read gets the next pushed line', async () => {
  const reader = new LineReader();
  const next = reader.next();
  reader.push('typed');
  assert.equal(await next, 'typed');
});

test('after the end, queued lines are still read, then every read is undefined', async () => {
  const reader = new LineReader();
  reader.push('last');
  reader.end();
  assert.equal(reader.ended, false);
  assert.equal(await reader.next(), 'last');
  assert.equal(await reader.next(), undefined);
  assert.equal(reader.ended, true);
  reader.push('ignored');
  assert.equal(await reader.next(), undefined);
});

test('ending with discard drops queued lines and wakes a waiting read', async () => {
  const reader = new LineReader();
  const waiting = reader.next();
  reader.end({ discard: true });
  assert.equal(await waiting, undefined);
  const second = new LineReader();
  second.push('queued');
  second.end({ discard: true });
  assert.equal(await second.next(), undefined);
});

test('an aborted read resolves undefined and leaves the next line for the next reader', async () => {
  const reader = new LineReader();
  const controller = new AbortController();
  const aborted = reader.next(controller.signal);
  controller.abort();
  assert.equal(await aborted, undefined);
  const next = reader.next();
  reader.push('for the prompt');
  assert.equal(await next, 'for the prompt');
});

test('two concurrent reads are a programming error', () => {
  const reader = new LineReader();
  void reader.next();
  assert.throws(() => reader.next(), /already awaited/);
});

test('a fresh read skips lines already queued and leaves them for the next plain read', async () => {
  const reader = new LineReader();
  reader.push('typed ahead');
  assert.equal(reader.queued, 1);
  const answer = reader.next(undefined, { fresh: true });
  reader.push('the answer');
  assert.equal(await answer, 'the answer');
  assert.equal(await reader.next(), 'typed ahead');
  const pending = reader.next(undefined, { fresh: true });
  reader.push('queued again');
  await pending;
  reader.push('left');
  reader.end();
  assert.equal(await reader.next(undefined, { fresh: true }), undefined, 'after the end a fresh read gets nothing');
  assert.equal(await reader.next(), 'left');
});

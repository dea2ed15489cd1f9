import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type DraftStorage, Drafts } from './drafts.ts';

function memoryStorage(): DraftStorage & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (key) => map.get(key) ?? null,
    setItem: (key, value) => void map.set(key, value),
    removeItem: (key) => void map.delete(key),
  };
}

test('a draft per session survives a new Drafts over the same storage (a reload)', () => {
  const storage = memoryStorage();
  new Drafts(storage).set('s1', 'half a thought');
  new Drafts(storage).set('s2', 'other');
  const reloaded = new Drafts(storage);
  assert.equal(reloaded.get('s1'), 'half a thought');
  assert.equal(reloaded.get('s2'), 'other');
  reloaded.set('s1', '');
  assert.equal(storage.map.has('outrigger.draft.s1'), false);
});

test('a storage that throws (quota, private mode) never breaks the composer', () => {
  const broken: DraftStorage = {
    getItem: () => {
      throw new Error('denied');
    },
    setItem: () => {
      throw new Error('quota');
    },
    removeItem: () => {
      throw new Error('denied');
    },
  };
  const drafts = new Drafts(broken);
  assert.doesNotThrow(() => drafts.set('s1', 'x'));
  assert.equal(drafts.get('s1'), '');
  assert.equal(new Drafts(undefined).get('s1'), '');
});

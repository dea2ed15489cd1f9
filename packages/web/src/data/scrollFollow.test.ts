import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type FollowItem, ScrollFollow } from './scrollFollow.ts';

const items = (...keys: string[]): FollowItem[] => keys.map((key) => ({ key, counts: !key.startsWith('footer') }));
/** A 1000 px transcript in a 400 px window, `fromEnd` pixels above its end. */
const at = (fromEnd: number, scrollHeight = 1000) => ({
  scrollTop: scrollHeight - 400 - fromEnd,
  scrollHeight,
  clientHeight: 400,
});

test('at the bottom it follows and counts nothing; new items while following are seen', () => {
  const follow = new ScrollFollow();
  follow.itemsChanged(items('a', 'b'));
  follow.scrolled(at(0));
  follow.itemsChanged(items('a', 'b', 'c'));
  assert.deepEqual(follow.state.get(), { following: true, unseen: 0 });
});

test('scrolling up stops following; items that arrive then are counted (footers are not)', () => {
  const follow = new ScrollFollow();
  follow.itemsChanged(items('a', 'b'));
  follow.scrolled(at(0));
  follow.scrolled(at(300));
  assert.equal(follow.following, false);
  follow.itemsChanged(items('a', 'b', 'c', 'footer:t1', 'd'));
  assert.deepEqual(follow.state.get(), { following: false, unseen: 2 });
  // Older rows paged in above change nothing below.
  follow.itemsChanged(items('z', 'a', 'b', 'c', 'footer:t1', 'd'));
  assert.equal(follow.state.get().unseen, 2);
});

test('a small move up is enough to leave (no fight with a streaming row); a wheel intent stops at once', () => {
  const follow = new ScrollFollow();
  follow.itemsChanged(items('a'));
  follow.scrolled(at(0));
  follow.scrolled(at(30));
  assert.equal(follow.following, false, '30 px up is inside the threshold, and still leaves');
  follow.scrolled(at(0));
  assert.equal(follow.following, true);
  follow.leftBottom();
  assert.equal(follow.following, false);
});

test('coming back down to the end follows again and clears the count', () => {
  const follow = new ScrollFollow({ threshold: 80 });
  follow.itemsChanged(items('a'));
  follow.scrolled(at(0));
  follow.scrolled(at(500));
  follow.itemsChanged(items('a', 'b', 'c'));
  assert.equal(follow.state.get().unseen, 2);
  follow.scrolled(at(200));
  assert.equal(follow.following, false, 'down, but not yet at the end');
  follow.scrolled(at(60));
  assert.deepEqual(follow.state.get(), { following: true, unseen: 0 });
});

test('growth of the content is not a move: following survives it, and a clamp at the end keeps it', () => {
  const follow = new ScrollFollow();
  follow.itemsChanged(items('a'));
  follow.scrolled(at(0, 1000));
  // The row grew by 200 px before the stick: no scroll event happened; the stick moves down to the end.
  follow.scrolled(at(0, 1200));
  assert.equal(follow.following, true);
  // The row shrank: the browser clamps scrollTop up, the view is still at the end.
  follow.scrolled(at(0, 900));
  assert.equal(follow.following, true);
});

test('Jump to latest (or a send) follows from anywhere and counts everything as seen', () => {
  const follow = new ScrollFollow();
  follow.itemsChanged(items('a'));
  follow.scrolled(at(0));
  follow.scrolled(at(600));
  follow.itemsChanged(items('a', 'b'));
  assert.equal(follow.state.get().unseen, 1);
  follow.follow();
  assert.deepEqual(follow.state.get(), { following: true, unseen: 0 });
  follow.itemsChanged(items('a', 'b', 'c'));
  assert.equal(follow.state.get().unseen, 0);
});

test('scrolling down through new items counts down what is still below', () => {
  const follow = new ScrollFollow();
  follow.itemsChanged(items('a'));
  follow.scrolled(at(0));
  follow.leftBottom();
  follow.itemsChanged(items('a', 'b', 'c', 'd'));
  assert.equal(follow.state.get().unseen, 3);
  follow.saw('c');
  assert.equal(follow.state.get().unseen, 1);
  follow.saw('a');
  assert.equal(follow.state.get().unseen, 1, 'seeing an older item takes nothing back');
});

test('a replaced list (the seen item gone) counts nothing rather than everything', () => {
  const follow = new ScrollFollow();
  follow.itemsChanged(items('a', 'b'));
  follow.leftBottom();
  follow.itemsChanged(items('x', 'y', 'z'));
  assert.equal(follow.state.get().unseen, 0);
});

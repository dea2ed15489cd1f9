import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PermissionUpdate } from '@anthropic-ai/claude-agent-sdk';
import { SessionPermissionLedger } from './sessionPermissionLedger.ts';

const bashRule = (command: string): PermissionUpdate => ({
  type: 'addRules',
  rules: [{ toolName: 'Bash', ruleContent: command }],
  behavior: 'allow',
  destination: 'session',
});

describe('SessionPermissionLedger', () => {
  it('matches a remembered grant regardless of key order and returns it for re-application', () => {
    const ledger = new SessionPermissionLedger();
    assert.equal(ledger.remember([bashRule('touch a.txt')]), true);
    const reordered = JSON.parse(
      '[{"destination":"session","behavior":"allow","rules":[{"ruleContent":"touch a.txt","toolName":"Bash"}],"type":"addRules"}]',
    ) as PermissionUpdate[];
    assert.deepEqual(ledger.match(reordered), [bashRule('touch a.txt')]);
    assert.equal(ledger.match([bashRule('touch b.txt')]), undefined);
  });

  it('needs every requested update to be remembered, and an empty set never matches', () => {
    const ledger = new SessionPermissionLedger();
    ledger.remember([bashRule('touch a.txt')]);
    assert.equal(ledger.match([bashRule('touch a.txt'), bashRule('rm -rf /')]), undefined);
    assert.equal(ledger.match([]), undefined);
    assert.equal(ledger.match(undefined), undefined);
  });

  it('never remembers or matches persistent or mixed destinations', () => {
    const ledger = new SessionPermissionLedger();
    const persistent: PermissionUpdate = { ...bashRule('touch a.txt'), destination: 'localSettings' };
    assert.equal(ledger.remember([persistent]), false);
    assert.equal(ledger.remember([bashRule('touch a.txt'), persistent]), false);
    assert.equal(ledger.size, 0);
    ledger.remember([bashRule('touch a.txt')]);
    assert.equal(ledger.match([bashRule('touch a.txt'), persistent]), undefined);
    assert.equal(ledger.match([persistent]), undefined);
  });

  it('treats Windows paths as exact strings', () => {
    const ledger = new SessionPermissionLedger();
    const dir: PermissionUpdate = {
      type: 'addDirectories',
      directories: ['C:\\Users\\dev\\proj'],
      destination: 'session',
    };
    ledger.remember([dir]);
    assert.deepEqual(ledger.match([{ ...dir }]), [dir]);
    assert.equal(ledger.match([{ ...dir, directories: ['C:/Users/dev/proj'] }]), undefined);
  });

  it('fails closed on cyclic, too deep or oversized updates', () => {
    const ledger = new SessionPermissionLedger();
    const cyclic = bashRule('touch a.txt') as PermissionUpdate & { self?: unknown };
    cyclic.self = cyclic;
    assert.equal(ledger.remember([cyclic]), false);
    assert.equal(ledger.match([cyclic]), undefined);
    let deep: unknown = 'x';
    for (let level = 0; level < 40; level += 1) deep = { deep };
    assert.equal(ledger.remember([{ ...bashRule('touch a.txt'), extra: deep } as unknown as PermissionUpdate]), false);
    assert.equal(ledger.remember([bashRule('x'.repeat(70 * 1024))]), false);
    assert.equal(ledger.size, 0);
  });

  it('evicts the least recently used grant, and a match refreshes it', () => {
    const ledger = new SessionPermissionLedger({ capacity: 2 });
    ledger.remember([bashRule('one')]);
    ledger.remember([bashRule('two')]);
    assert.ok(ledger.match([bashRule('one')]), 'one is remembered');
    ledger.remember([bashRule('three')]);
    assert.equal(ledger.size, 2);
    assert.ok(ledger.match([bashRule('one')]), 'the refreshed grant survives');
    assert.equal(ledger.match([bashRule('two')]), undefined, 'the least recently used grant is evicted');
    assert.ok(ledger.match([bashRule('three')]));
  });

  it('keeps its own copies, so later mutation of the caller objects changes nothing', () => {
    const ledger = new SessionPermissionLedger();
    const update = bashRule('touch a.txt');
    ledger.remember([update]);
    (update as { rules: { ruleContent?: string }[] }).rules[0].ruleContent = 'rm -rf /';
    assert.ok(ledger.match([bashRule('touch a.txt')]));
  });
});

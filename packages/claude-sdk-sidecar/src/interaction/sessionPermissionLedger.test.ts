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

  it('remembers an exact request by tool and canonical input, with the grant it came with', () => {
    const ledger = new SessionPermissionLedger();
    const input = { command: 'mkdir -p d && echo hi > d/a.txt', description: 'demo' };
    assert.equal(ledger.rememberRequest('Bash', input, []), true);
    assert.deepEqual(ledger.matchRequest('Bash', { description: 'demo', command: input.command }), []);
    assert.equal(ledger.matchRequest('Bash', { ...input, command: 'mkdir -p e' }), undefined, 'another input');
    assert.equal(ledger.matchRequest('Write', input), undefined, 'another tool');

    ledger.rememberRequest('Bash', { command: 'touch a.txt' }, [bashRule('touch a.txt')]);
    assert.deepEqual(ledger.matchRequest('Bash', { command: 'touch a.txt' }), [bashRule('touch a.txt')]);
    assert.equal(ledger.match([bashRule('mkdir -p d && echo hi > d/a.txt')]), undefined, 'a request is not an update');
  });

  it('never keys a request it cannot bound, nor one whose grant is not session-scoped', () => {
    const ledger = new SessionPermissionLedger();
    let deep: unknown = 'x';
    for (let level = 0; level < 40; level += 1) deep = { deep };
    assert.equal(ledger.rememberRequest('Bash', { deep }, []), false);
    assert.equal(ledger.rememberRequest('Bash', { command: 'x'.repeat(70 * 1024) }, []), false);
    const cyclic: Record<string, unknown> = { command: 'ls' };
    cyclic.self = cyclic;
    assert.equal(ledger.rememberRequest('Bash', cyclic, []), false);
    assert.equal(ledger.matchRequest('Bash', cyclic), undefined);
    const persistent: PermissionUpdate = { ...bashRule('ls'), destination: 'localSettings' };
    assert.equal(ledger.rememberRequest('Bash', { command: 'ls' }, [persistent]), false);
    assert.equal(ledger.size, 0);
  });

  it('shares one least-recently-used bound between requests and updates', () => {
    const ledger = new SessionPermissionLedger({ capacity: 2 });
    ledger.rememberRequest('Bash', { command: 'one' }, []);
    ledger.remember([bashRule('two')]);
    assert.ok(ledger.matchRequest('Bash', { command: 'one' }), 'one is remembered and refreshed');
    ledger.rememberRequest('Bash', { command: 'three' }, []);
    assert.equal(ledger.size, 2);
    assert.equal(ledger.match([bashRule('two')]), undefined, 'the least recently used entry is evicted');
    assert.ok(ledger.matchRequest('Bash', { command: 'one' }));
    assert.ok(ledger.matchRequest('Bash', { command: 'three' }));
  });
});

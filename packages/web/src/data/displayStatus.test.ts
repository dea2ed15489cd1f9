import assert from 'node:assert/strict';
import { test } from 'node:test';
import { displayStatus, statusLabels } from './displayStatus.ts';

test('a dead stream shows disconnected whatever the last status said', () => {
  assert.equal(displayStatus('running', 'live'), 'running');
  assert.equal(displayStatus('needs_input', 'connecting'), 'needs_input');
  assert.equal(displayStatus('running', 'disconnected'), 'disconnected');
  assert.equal(displayStatus('idle', 'unauthorized'), 'disconnected');
  assert.equal(statusLabels.needs_input, 'Needs you');
});

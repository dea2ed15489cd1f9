import assert from 'node:assert/strict';
import { test } from 'node:test';
import { displayStatus, statusLabels } from './displayStatus.ts';

const open = (status: 'idle' | 'running' | 'needs_input' | 'failed') => ({ status, closed: false });

test('a dead stream shows disconnected whatever the last status said', () => {
  assert.equal(displayStatus(open('running'), 'live'), 'running');
  assert.equal(displayStatus(open('needs_input'), 'connecting'), 'needs_input');
  assert.equal(displayStatus(open('running'), 'disconnected'), 'disconnected');
  assert.equal(displayStatus(open('idle'), 'unauthorized'), 'disconnected');
  assert.equal(statusLabels.needs_input, 'Needs you');
});

test('a closed session says Closed, not its last status, also while the stream is down', () => {
  assert.equal(displayStatus({ status: 'idle', closed: true }, 'live'), 'closed');
  assert.equal(displayStatus({ status: 'failed', closed: true }, 'disconnected'), 'closed');
  assert.equal(statusLabels.closed, 'Closed');
});

test('an idle session whose Stop paused queued prompts says Paused, never Running', () => {
  assert.equal(displayStatus({ status: 'idle', closed: false, queuePaused: true }, 'live'), 'paused');
  assert.equal(statusLabels.paused, 'Paused');
  assert.equal(displayStatus({ status: 'needs_input', closed: false, queuePaused: true }, 'live'), 'needs_input');
  assert.equal(displayStatus({ status: 'idle', closed: false, queuePaused: false }, 'live'), 'idle');
  assert.equal(displayStatus({ status: 'idle', closed: false, queuePaused: true }, 'disconnected'), 'disconnected');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { within } from '../testing/within.ts';
import type { LineTransport, LineTransportEnd } from './lineTransport.ts';
import { createLinkedLineTransports } from './linkedLineTransports.ts';

function record(transport: LineTransport) {
  const lines: string[] = [];
  const ends: LineTransportEnd[] = [];
  const { promise: closed, resolve } = Promise.withResolvers<void>();
  transport.start({
    onLine: (line) => lines.push(line),
    onClose: (end) => {
      ends.push(end);
      resolve();
    },
  });
  return { lines, closed, ends, closeCount: () => ends.length };
}

test('delivers in order on a later tick, both ways', async () => {
  const [host, sidecar] = createLinkedLineTransports();
  const atSidecar = record(sidecar);
  const atHost = record(host);
  host.send('a');
  host.send('b');
  sidecar.send('c');
  assert.deepEqual(atSidecar.lines, [], 'delivery is asynchronous');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(atSidecar.lines, ['a', 'b']);
  assert.deepEqual(atHost.lines, ['c']);
});

test('lines sent before the peer starts are kept for it', async () => {
  const [host, sidecar] = createLinkedLineTransports();
  record(host);
  host.send('early');
  const atSidecar = record(sidecar);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(atSidecar.lines, ['early']);
});

test('close delivers what is in flight, then closes both ends once; later sends are dropped', async () => {
  const [host, sidecar] = createLinkedLineTransports();
  const atHost = record(host);
  const atSidecar = record(sidecar);
  sidecar.send('last words');
  await sidecar.close();
  await within(Promise.all([atHost.closed, atSidecar.closed]), 'both ends to close');
  assert.deepEqual(atHost.lines, ['last words']);
  host.send('too late');
  await sidecar.close();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(atSidecar.lines, []);
  assert.deepEqual(atHost.ends, [{ kind: 'input_ended' }], 'the peer sees its input end');
  assert.deepEqual(atSidecar.ends, [{ kind: 'closed' }], 'the side that closed sees its own close');
});

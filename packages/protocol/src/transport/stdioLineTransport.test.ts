import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import { test } from 'node:test';
import { within } from '../testing/within.ts';
import type { LineTransportEnd } from './lineTransport.ts';
import { createStdioLineTransport } from './stdioLineTransport.ts';

test('reads lines from input, reports oversized ones, and closes when input ends', async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: string[] = [];
  const oversized: number[] = [];
  const { promise: closed, resolve } = Promise.withResolvers<LineTransportEnd>();
  createStdioLineTransport({ input, output, maxLineBytes: 16 }).start({
    onLine: (line) => lines.push(line),
    onOversizedLine: (bytes) => oversized.push(bytes),
    onClose: resolve,
  });
  input.write('{"a":1}\r\n{"too":"long for the limit"}\n{"b"');
  input.end(':2}');
  assert.deepEqual(await within(closed, 'the transport to close at end of input'), { kind: 'input_ended' });
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}']);
  assert.deepEqual(oversized, [Buffer.byteLength('{"too":"long for the limit"}')]);
});

test('send appends a newline; close flushes and ends the output, then drops sends', async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  let closes = 0;
  const transport = createStdioLineTransport({ input, output });
  transport.start({ onLine: () => {}, onClose: () => closes++ });
  transport.send('{"version":10,"type":"ok"}');
  transport.send('second');
  await within(transport.close(), 'close');
  transport.send('after close');
  const written: Buffer[] = [];
  for await (const chunk of output) written.push(chunk);
  assert.equal(Buffer.concat(written).toString('utf8'), '{"version":10,"type":"ok"}\nsecond\n');
  assert.equal(closes, 1);
  input.end('ignored\n');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(closes, 1);
});

test('over real process stdio: echoes lines, flushes, and lets the process exit at stdin EOF', async () => {
  const transportUrl = new URL('./stdioLineTransport.ts', import.meta.url).href;
  const echo = `
    import { createStdioLineTransport } from ${JSON.stringify(transportUrl)};
    const transport = createStdioLineTransport({ input: process.stdin, output: process.stdout });
    transport.start({ onLine: (line) => transport.send('echo:' + line), onClose: () => void transport.close() });
  `;
  const child = spawn(process.execPath, ['--input-type=module', '--eval', echo], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  try {
    const received: string[] = [];
    const host = createStdioLineTransport({ input: child.stdout, output: child.stdin });
    const { promise: closed, resolve } = Promise.withResolvers<LineTransportEnd>();
    host.start({ onLine: (line) => received.push(line), onClose: resolve });
    host.send('one');
    host.send('zwei ✓');
    child.stdin.end();
    const [code] = await within(once(child, 'exit'), 'the child to exit after stdin EOF');
    await within(closed, 'the host transport to close');
    assert.equal(code, 0);
    assert.deepEqual(received, ['echo:one', 'echo:zwei ✓']);
  } finally {
    child.kill();
  }
});

test('a write nobody reads closes the transport with the failure instead of throwing EPIPE', async () => {
  // The child closes its stdin and stays alive: the pipe has no reader, so writing to it fails with EPIPE.
  const child = spawn('sh', ['-c', 'exec 0<&-; echo ready; exec sleep 30'], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const transport = createStdioLineTransport({ input: child.stdout, output: child.stdin });
    const lines: string[] = [];
    const ends: LineTransportEnd[] = [];
    const { promise: ready, resolve: onReady } = Promise.withResolvers<void>();
    const { promise: closed, resolve: onClosed } = Promise.withResolvers<void>();
    transport.start({
      onLine: (line) => {
        lines.push(line);
        onReady();
      },
      onClose: (end) => {
        ends.push(end);
        onClosed();
      },
    });
    await within(ready, 'the child to close its stdin');
    transport.send('{"version":10,"type":"exec"}');
    await within(closed, 'the transport to close with the write failure');
    assert.equal(ends.length, 1);
    const [end] = ends;
    assert.equal(end?.kind, 'failed');
    assert.equal(end?.kind === 'failed' ? end.stream : undefined, 'output');
    assert.match(end?.kind === 'failed' ? end.error.message : '', /EPIPE/);
    transport.send('after the failure is dropped');
    await within(transport.close(), 'close after the failure');
    assert.equal(ends.length, 1, 'closed once');
  } finally {
    child.kill();
  }
});

test('coalesceWrites writes the lines of one event-loop turn with one write, in order, and close writes the rest', async () => {
  const writes: string[] = [];
  const output = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      writes.push(chunk.toString('utf8'));
      callback();
    },
  });
  const transport = createStdioLineTransport({ input: new PassThrough(), output, coalesceWrites: true });
  transport.start({ onLine: () => {}, onClose: () => {} });
  transport.send('one');
  transport.send('two');
  await Promise.resolve();
  transport.send('three');
  assert.deepEqual(writes, [], 'nothing is written before the turn ends');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(writes, ['one\ntwo\nthree\n']);
  transport.send('four');
  transport.send('five');
  await within(transport.close(), 'close');
  assert.deepEqual(writes, ['one\ntwo\nthree\n', 'four\nfive\n'], 'close writes what was collected, then ends');
  transport.send('after close');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(writes.length, 2);
});

test('a read error closes the transport with the failure; lines can still be sent until close', async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  const ends: LineTransportEnd[] = [];
  const transport = createStdioLineTransport({ input, output });
  transport.start({ onLine: () => {}, onClose: (end) => ends.push(end) });
  input.destroy(new Error('read failed'));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(ends.length, 1);
  assert.equal(ends[0]?.kind, 'failed');
  assert.equal(ends[0]?.kind === 'failed' ? ends[0].stream : undefined, 'input');
  transport.send('last words');
  await within(transport.close(), 'close');
  const written: Buffer[] = [];
  for await (const chunk of output) written.push(chunk);
  assert.equal(Buffer.concat(written).toString('utf8'), 'last words\n');
  assert.equal(ends.length, 1, 'closed once');
});

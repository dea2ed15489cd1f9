import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { z } from 'zod';
import { HostError } from '../hostError.ts';
import { readJsonBody } from './requestInput.ts';

const schema = z.strictObject({ prompt: z.string() });

function headersOnly(headers: Record<string, string>): Request {
  return new Request('http://127.0.0.1/api/x', { method: 'POST', headers });
}

const rejectsWith = (code: string) => (error: unknown) => error instanceof HostError && error.code === code;

test('a node request body is read straight from the node stream, across chunks, and validated', async () => {
  const server = createServer(async (incoming: IncomingMessage, response) => {
    const headers = headersOnly({ 'content-type': String(incoming.headers['content-type']) });
    try {
      const body = await readJsonBody(headers, schema, 1024, incoming);
      response.end(JSON.stringify({ ok: body }));
    } catch (error) {
      response.statusCode = 400;
      response.end(JSON.stringify({ code: error instanceof HostError ? error.code : 'other' }));
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const post = async (parts: string[]) => {
      // No Content-Length: a chunked upload, written in parts.
      const request = httpRequest({ port, method: 'POST', path: '/', headers: { 'content-type': 'application/json' } });
      for (const part of parts) {
        request.write(part);
        await new Promise((resolve) => setImmediate(resolve));
      }
      request.end();
      const [response] = (await once(request, 'response')) as [IncomingMessage];
      let text = '';
      for await (const chunk of response) text += chunk;
      return { status: response.statusCode, body: JSON.parse(text) as unknown };
    };
    assert.deepEqual(await post(['{"pro', 'mpt":"h', 'ello"}']), { status: 200, body: { ok: { prompt: 'hello' } } });
    assert.deepEqual(await post(['{"prompt":1}']), { status: 400, body: { code: 'validation_failed' } });
    assert.deepEqual(await post([]), { status: 400, body: { code: 'validation_failed' } }, 'an empty body reads as {}');
  } finally {
    server.close();
  }
});

test('a node stream over the limit is cut off as soon as it passes it, and destroyed', async () => {
  const chunk = Buffer.alloc(1000, 0x20);
  let pulled = 0;
  const source = new Readable({
    read() {
      pulled += chunk.byteLength;
      this.push(pulled > 100_000 ? null : chunk);
    },
  });
  await assert.rejects(
    readJsonBody(headersOnly({ 'content-type': 'application/json' }), schema, 5_500, source),
    rejectsWith('payload_too_large'),
  );
  assert.ok(pulled <= 5_500 + 3 * chunk.byteLength, `pulled ${pulled} bytes of an oversized body`);
  assert.equal(source.destroyed, true, 'the rest of the body is not read');
});

test('a web stream body (no node request) still reads, and is canceled past the limit', async () => {
  const body = JSON.stringify({ prompt: 'from a web stream' });
  const request = new Request('http://127.0.0.1/api/x', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  assert.deepEqual(await readJsonBody(request, schema, 1024), { prompt: 'from a web stream' });

  let canceled = false;
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(new Uint8Array(1000).fill(0x20));
    },
    cancel() {
      canceled = true;
    },
  });
  await assert.rejects(
    readJsonBody(headersOnly({ 'content-type': 'application/json' }), schema, 5_500, endless),
    rejectsWith('payload_too_large'),
  );
  assert.equal(canceled, true);
});

test('a declared Content-Length over the limit is refused before anything is read', async () => {
  let read = false;
  const source = new Readable({
    read() {
      read = true;
      this.push(null);
    },
  });
  await assert.rejects(
    readJsonBody(headersOnly({ 'content-type': 'application/json', 'content-length': '9999' }), schema, 1024, source),
    rejectsWith('payload_too_large'),
  );
  assert.equal(read, false);
});

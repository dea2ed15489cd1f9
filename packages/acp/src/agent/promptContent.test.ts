import assert from 'node:assert/strict';
import { test } from 'node:test';
import { postTurnBodySchema } from '@outrigger/host-api';
import { turnBodyOf } from './promptContent.ts';

test('text blocks are the prompt; images, embedded files and links follow as the host’s blocks', () => {
  const body = turnBodyOf(
    [
      { type: 'text', text: 'Fix the bug' },
      { type: 'resource', resource: { uri: 'file:///work/my%20app/a.ts', text: 'let a = 1;' } },
      { type: 'resource_link', uri: 'file:///work/b.ts', name: 'b.ts' },
      { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
      { type: 'text', text: 'quickly' },
    ],
    'acp-1',
  );
  assert.deepEqual(postTurnBodySchema.parse(body), body, 'a body the host accepts');
  assert.equal(body.prompt, 'Fix the bug\n\nquickly');
  assert.equal(body.clientMessageId, 'acp-1');
  assert.deepEqual(body.content, [
    { type: 'text', text: 'Contents of /work/my app/a.ts:\n\nlet a = 1;' },
    { type: 'text', text: 'Attached: /work/b.ts' },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
  ]);
});

test('audio, binary resources, odd images and an empty prompt are refused as invalid params', () => {
  const invalid = (error: { code?: number }) => error.code === -32602;
  assert.throws(() => turnBodyOf([{ type: 'audio', mimeType: 'audio/wav', data: 'AAAA' }], 'x'), invalid);
  assert.throws(
    () => turnBodyOf([{ type: 'resource', resource: { uri: 'file:///a.bin', blob: 'AAAA' } }], 'x'),
    invalid,
  );
  assert.throws(() => turnBodyOf([{ type: 'image', mimeType: 'image/tiff', data: 'AAAA' }], 'x'), invalid);
  assert.throws(() => turnBodyOf([{ type: 'text', text: '  ' }], 'x'), invalid);
});

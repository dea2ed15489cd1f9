import assert from 'node:assert/strict';
import { test } from 'node:test';
import { imageInputBlockSchema } from '@outrigger/host-api';
import { attachmentProblem, toBase64 } from './attachments.ts';

test('only png, jpeg, gif and webp up to 5 MB, at most 8 per message', () => {
  assert.equal(attachmentProblem({ name: 'a.png', type: 'image/png', size: 1000 }, 0), null);
  assert.match(attachmentProblem({ name: 'a.svg', type: 'image/svg+xml', size: 10 }, 0) ?? '', /not a PNG/);
  assert.match(
    attachmentProblem({ name: 'big.jpg', type: 'image/jpeg', size: 6 * 1024 * 1024 }, 0) ?? '',
    /at most 5 MB/,
  );
  assert.match(attachmentProblem({ name: 'a.webp', type: 'image/webp', size: 10 }, 8) ?? '', /at most 8 images/);
});

test('base64 of large bytes is what the host’s schema accepts', () => {
  const bytes = new Uint8Array(100_000).map((_, i) => i % 256);
  const data = toBase64(bytes);
  assert.equal(Buffer.from(data, 'base64').equals(Buffer.from(bytes)), true);
  const parsed = imageInputBlockSchema.safeParse({
    type: 'image',
    source: { type: 'base64', media_type: 'image/png', data },
  });
  assert.equal(parsed.success, true);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AttachmentRecord } from '../store/records.ts';
import { draftTurn, promptBlocks } from './turnInput.ts';

const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]).toString('base64');

test('images become attachments and come back as the same base64 blocks, after the prompt, in order', async () => {
  let next = 0;
  const draft = draftTurn(
    {
      prompt: 'look at these',
      clientMessageId: 'c1',
      content: [
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
        { type: 'text', text: 'and this note' },
      ],
    },
    { sessionId: 's1', turnId: 't1', now: 5, newId: () => `a${++next}` },
  );
  assert.equal(draft.clientMessageId, 'c1');
  assert.deepEqual(draft.input, [
    { type: 'image', attachmentId: 'a1', mediaType: 'image/png' },
    { type: 'text', text: 'and this note' },
  ]);
  assert.equal(draft.attachments.length, 1);
  assert.deepEqual([...(draft.attachments[0]?.bytes ?? [])], [0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]);
  assert.equal(draft.attachments[0]?.turnId, 't1');

  const stored = new Map<string, AttachmentRecord>(draft.attachments.map((attachment) => [attachment.id, attachment]));
  const blocks = await promptBlocks(draft.prompt, draft.input, async (id) => stored.get(id));
  assert.deepEqual(blocks, [
    { type: 'text', text: 'look at these' },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
    { type: 'text', text: 'and this note' },
  ]);
});

test('a blank prompt sends only its blocks; a missing attachment is an error, not a silent drop', async () => {
  assert.deepEqual(await promptBlocks('  ', [{ type: 'text', text: 'only this' }], async () => undefined), [
    { type: 'text', text: 'only this' },
  ]);
  await assert.rejects(
    promptBlocks('x', [{ type: 'image', attachmentId: 'gone', mediaType: 'image/png' }], async () => undefined),
    /attachment gone is missing/,
  );
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openBenchModel } from './benchModel.ts';

async function ask(baseUrl: string, text: string): Promise<Response> {
  return fetch(`${baseUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-bench' },
    body: JSON.stringify({ model: 'claude-bench', max_tokens: 64, messages: [{ role: 'user', content: text }] }),
  });
}

test('the bench model runs in its own process and reports the requests no rule matched when it closes', async () => {
  const model = await openBenchModel();
  let closed = false;
  try {
    const baseUrl = model.home.env.ANTHROPIC_BASE_URL;
    assert.ok(baseUrl, 'the Claude Code home points at the mock');
    const answered = await ask(baseUrl, 'bench: one turn');
    assert.equal(answered.status, 200);
    assert.match(JSON.stringify(await answered.json()), /The bench model answers/);
    assert.equal((await ask(baseUrl, 'nothing the bench expects')).status, 500);
    assert.equal(await model.close(), 1);
    closed = true;
    await assert.rejects(ask(baseUrl, 'bench: after close'), 'the mock process is gone');
  } finally {
    if (!closed) await model.close();
  }
});

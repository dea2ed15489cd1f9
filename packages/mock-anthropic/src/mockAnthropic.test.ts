import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type MockAnthropic, type MockAnthropicOptions, startMockAnthropic } from './mockAnthropic.ts';
import type { ScenarioInput } from './scenarioSchema.ts';
import { parseSseStream } from './sse.ts';

const fetchTimeoutMs = 5_000;

async function withMock(options: MockAnthropicOptions, run: (mock: MockAnthropic) => Promise<void>): Promise<void> {
  const mock = await startMockAnthropic(options);
  try {
    await run(mock);
  } finally {
    await mock.close();
  }
}

function userBody(text: string, extra: Record<string, unknown> = {}) {
  return {
    model: 'claude-test',
    max_tokens: 1000,
    stream: true,
    messages: [{ role: 'user', content: text }],
    ...extra,
  };
}

function post(mock: MockAnthropic, body: unknown, path = '/v1/messages?beta=true') {
  return fetch(`${mock.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-secret', authorization: 'Bearer secret' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(fetchTimeoutMs),
  });
}

const hello = { match: { userText: 'hello' }, reply: { content: [{ type: 'text' as const, text: 'Hi there!' }] } };

test('answers a streaming request with SSE and records it with credentials redacted', async () => {
  await withMock({ rules: [hello] }, async (mock) => {
    const response = await post(mock, userBody('hello'));
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    const frames = parseSseStream(await response.text());
    assert.deepEqual(
      frames.map((frame) => frame.event),
      [
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    );
    assert.deepEqual(mock.requests.length, 1);
    const [recorded] = mock.messageRequests();
    assert.equal(recorded?.method, 'POST');
    assert.equal(recorded?.path, '/v1/messages');
    assert.equal(recorded?.url, '/v1/messages?beta=true');
    assert.equal(recorded?.headers['x-api-key'], '[redacted]');
    assert.equal(recorded?.headers.authorization, '[redacted]');
    assert.deepEqual(recorded?.body, userBody('hello'));
    assert.equal(recorded?.answeredBy, 'rules[0]');
    assert.ok(!JSON.stringify(mock.requests).includes('secret'), 'no credential survives in the recording');
  });
});

test('answers stream:false with a JSON message', async () => {
  await withMock({ rules: [hello] }, async (mock) => {
    const response = await post(mock, userBody('hello', { stream: false }));
    assert.equal(response.status, 200);
    const message = (await response.json()) as Record<string, unknown>;
    assert.equal(message.type, 'message');
    assert.deepEqual(message.content, [{ type: 'text', text: 'Hi there!' }]);
    assert.equal(message.stop_reason, 'end_turn');
  });
});

test('scripted HTTP errors use the Anthropic error shape and retry headers', async () => {
  const statuses = [
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [529, 'overloaded_error'],
  ] as const;
  await withMock(
    {
      rules: statuses.map(([status]) => ({
        match: { userText: `status ${status}` },
        reply: { error: { status, retryAfterSeconds: status === 429 ? 7 : undefined } },
      })),
    },
    async (mock) => {
      for (const [status, type] of statuses) {
        const response = await post(mock, userBody(`status ${status}`));
        assert.equal(response.status, status);
        const body = (await response.json()) as { type: string; error: { type: string; message: string } };
        assert.equal(body.type, 'error');
        assert.equal(body.error.type, type);
        assert.equal(typeof body.error.message, 'string');
        assert.equal(response.headers.get('retry-after'), status === 429 ? '7' : null);
      }
    },
  );
});

test('other routes: count_tokens gives a plausible count, anything else a recorded 404', async () => {
  await withMock({}, async (mock) => {
    const count = await post(mock, userBody('a fairly long prompt '.repeat(20)), '/v1/messages/count_tokens');
    assert.equal(count.status, 200);
    const { input_tokens } = (await count.json()) as { input_tokens: number };
    assert.ok(input_tokens > 50 && input_tokens < 500, `plausible token count, got ${input_tokens}`);
    const missing = await fetch(`${mock.url}/api/hello`, {
      method: 'HEAD',
      signal: AbortSignal.timeout(fetchTimeoutMs),
    });
    assert.equal(missing.status, 404);
    assert.deepEqual(
      mock.requests.map((request) => `${request.method} ${request.path}`),
      ['POST /v1/messages/count_tokens', 'HEAD /api/hello'],
    );
    assert.deepEqual(mock.messageRequests(), []);
  });
});

test('strict mode answers an unmatched request with a loud, non-retryable 500 and records it', async () => {
  await withMock({ rules: [hello] }, async (mock) => {
    await (await post(mock, userBody('hello'))).text();
    const longText = `please do ${'x'.repeat(200)}`;
    const body = {
      stream: true,
      messages: [
        { role: 'user', content: longText },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_a', name: 'Bash', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: 'ok' }] },
      ],
    };
    const response = await post(mock, body);
    assert.equal(response.status, 500);
    assert.equal(response.headers.get('x-should-retry'), 'false');
    const { error } = (await response.json()) as { error: { message: string } };
    assert.match(error.message, /no rule matched request #1, last user text "please do x{70}…", tool results: Bash$/);
    assert.equal(mock.unmatched.length, 1);
    assert.equal(mock.unmatched[0]?.index, 1);
    assert.equal(mock.unmatched[0]?.request, mock.requests[1]);
  });
});

test('non-strict mode answers an unmatched request with a placeholder and still records it', async () => {
  await withMock({ strict: false }, async (mock) => {
    const response = await post(mock, userBody('anything', { stream: false }));
    assert.equal(response.status, 200);
    const message = (await response.json()) as { content: { text: string }[] };
    assert.match(message.content[0]?.text ?? '', /no scripted reply/);
    assert.equal(mock.unmatched.length, 1);
  });
});

test('a scenario and function rules answer together, function rules first', async () => {
  const scenario: ScenarioInput = {
    name: 'mini',
    rules: [{ reply: { content: [{ type: 'text', text: 'from scenario' }] } }],
  };
  await withMock(
    {
      scenario,
      rules: [(request) => (request.index === 1 ? { content: [{ type: 'text', text: 'from function' }] } : undefined)],
    },
    async (mock) => {
      assert.match(await (await post(mock, userBody('one'))).text(), /from scenario/);
      assert.match(await (await post(mock, userBody('two'))).text(), /from function/);
    },
  );
});

test('a rule that throws or returns a bad reply fails the request loudly', async () => {
  await withMock(
    {
      rules: [
        () => {
          throw new Error('boom');
        },
      ],
    },
    async (mock) => {
      const response = await post(mock, userBody('x'));
      assert.equal(response.status, 500);
      assert.match(await response.text(), /rule failed: boom/);
    },
  );
});

test('a cut-off reply ends the stream after the given number of events', async () => {
  await withMock(
    { rules: [{ reply: { content: [{ type: 'text', text: 'abcdefghij', chunkSize: 1 }], cutOffAfterEvents: 4 } }] },
    async (mock) => {
      const response = await post(mock, userBody('x'));
      assert.equal(response.status, 200);
      let received = '';
      const decoder = new TextDecoder();
      await assert.rejects(async () => {
        for await (const chunk of response.body ?? []) received += decoder.decode(chunk, { stream: true });
      }, 'the connection breaks instead of ending cleanly');
      assert.deepEqual(
        parseSseStream(received).map((frame) => frame.event),
        ['message_start', 'content_block_start', 'content_block_delta', 'content_block_delta'],
      );
    },
  );
});

test('a stalled request never gets an answer and does not keep close() waiting', async () => {
  const mock = await startMockAnthropic({ rules: [{ reply: { stall: true } }] });
  const pending = post(mock, userBody('x'));
  await mock.waitForMessageRequests(1, fetchTimeoutMs);
  const outcome = await Promise.race([
    pending.then(
      () => 'answered',
      () => 'failed',
    ),
    new Promise((resolve) => setTimeout(resolve, 200, 'still waiting')),
  ]);
  assert.equal(outcome, 'still waiting');
  await mock.close();
  await assert.rejects(pending, 'the stalled request is cut when the server closes');
});

test('close() cuts a slow stream; a client leaving mid-stream does not disturb the next request', async () => {
  const slow = {
    match: { userText: 'slow' },
    reply: { content: [{ type: 'text' as const, text: 'x'.repeat(100), chunkSize: 1, chunkDelayMs: 100 }] },
  };
  await withMock({ rules: [slow, hello] }, async (mock) => {
    const leaving = new AbortController();
    const response = await fetch(`${mock.url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify(userBody('slow')),
      signal: leaving.signal,
    });
    const reader = response.body?.getReader();
    await reader?.read();
    leaving.abort();
    const next = await post(mock, userBody('hello'));
    assert.match(await next.text(), /Hi there!/);
  });
  const mock = await startMockAnthropic({ rules: [slow] });
  const response = await post(mock, userBody('slow'));
  await mock.close();
  await assert.rejects(response.text(), 'the open stream is cut by close()');
});

test('waitForMessageRequests fails with a clear message when the requests never come', async () => {
  await withMock({}, async (mock) => {
    await assert.rejects(mock.waitForMessageRequests(1, 50), /waited 50 ms for 1 message requests, got 0/);
  });
});

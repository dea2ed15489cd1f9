import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { anthropicErrorBody, anthropicErrorType } from './anthropicError.ts';
import { errorMessage } from './errorMessage.ts';
import { estimateTokens, messageJson, messageStreamEvents, scriptMessage } from './messageEvents.ts';
import { parseRequestBody, type RecordedRequest, redactHeaders } from './recordedRequest.ts';
import { type MessagesRequestView, viewMessagesRequest } from './requestView.ts';
import { type MockRule, RuleBook } from './ruleBook.ts';
import { parseScenario } from './scenarioLoader.ts';
import type { ErrorReply, MessageReply, Scenario, ScenarioInput } from './scenarioSchema.ts';
import { encodeSseEvent } from './sse.ts';

export interface MockAnthropicOptions {
  /** Scenario data (validated here); its rules are tried after `rules`. */
  scenario?: ScenarioInput | Scenario;
  /** Tried in order before the scenario's rules; a function may return undefined to pass. */
  rules?: MockRule[];
  /** Default true: an unmatched request gets a loud HTTP 500. When false it gets a short placeholder answer. */
  strict?: boolean;
  /** Default 0 (any free port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

/** A POST /v1/messages request no rule answered. */
export interface UnmatchedRequest {
  /** 0-based index among POST /v1/messages requests. */
  index: number;
  /** Index, last user text (truncated) and tool_result names: what the strict error message says. */
  summary: string;
  request: RecordedRequest;
}

export interface MockAnthropic {
  /** `http://HOST:PORT`, for ANTHROPIC_BASE_URL. */
  readonly url: string;
  /** Every request received, in arrival order. */
  readonly requests: RecordedRequest[];
  readonly unmatched: UnmatchedRequest[];
  /** Only the POST /v1/messages requests. */
  messageRequests(): RecordedRequest[];
  /** Resolves once `count` POST /v1/messages requests have arrived; rejects after `timeoutMs`. */
  waitForMessageRequests(count: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  /** Stops listening and cuts open streams and stalled requests. */
  close(): Promise<void>;
}

const placeholderReply: MessageReply = {
  content: [{ type: 'text', text: 'mock-anthropic has no scripted reply for this request.' }],
};

export async function startMockAnthropic(options: MockAnthropicOptions = {}): Promise<MockAnthropic> {
  const scenario = options.scenario === undefined ? undefined : parseScenario(options.scenario, scenarioLabel(options));
  const ruleBook = new RuleBook([...(options.rules ?? []), ...(scenario?.rules ?? [])], scenarioLabel(options));
  const strict = options.strict ?? true;
  const requests: RecordedRequest[] = [];
  const unmatched: UnmatchedRequest[] = [];
  const closing = new AbortController();
  const waiters = new Set<() => void>();
  let messageCount = 0;

  const messageRequests = () => requests.filter(isMessagesCall);

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, anthropicErrorBody(500, `mock-anthropic failed: ${errorMessage(error)}`));
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = req.url ?? '/';
    const recorded: RecordedRequest = {
      index: requests.length,
      method: req.method ?? 'GET',
      path: url.split('?')[0] ?? url,
      url,
      headers: redactHeaders(req.headers),
      body: parseRequestBody(Buffer.concat(chunks).toString('utf8')),
    };
    requests.push(recorded);
    for (const wake of waiters) wake();

    if (isMessagesCall(recorded)) {
      await answerMessages(recorded, viewMessagesRequest(recorded.body, messageCount++), res);
    } else if (recorded.method === 'POST' && recorded.path === '/v1/messages/count_tokens') {
      sendJson(res, 200, { input_tokens: estimateTokens(JSON.stringify(recorded.body ?? '')) });
    } else {
      sendJson(res, 404, anthropicErrorBody(404, `mock-anthropic has no route ${recorded.method} ${recorded.path}`));
    }
  }

  async function answerMessages(recorded: RecordedRequest, view: MessagesRequestView, res: ServerResponse) {
    let answer: ReturnType<RuleBook['answer']>;
    try {
      answer = ruleBook.answer(view);
    } catch (error) {
      sendError(res, {
        error: { status: 500, message: `mock-anthropic rule failed: ${errorMessage(error)}`, shouldRetry: false },
      });
      return;
    }
    if (answer === undefined) {
      const summary = summarize(view);
      unmatched.push({ index: view.index, summary, request: recorded });
      if (strict) {
        // x-should-retry:false makes Claude Code fail at once instead of retrying with backoff.
        sendError(res, {
          error: { status: 500, message: `mock-anthropic: no rule matched ${summary}`, shouldRetry: false },
        });
        return;
      }
      answer = { reply: placeholderReply, ruleLabel: 'placeholder' };
    }
    const { reply } = answer;
    recorded.answeredBy = answer.ruleLabel;
    if ('error' in reply) return sendError(res, reply);
    if ('stall' in reply) return; // the response stays open until the client leaves or the server closes
    await sendMessage(res, recorded.body, reply);
  }

  async function sendMessage(res: ServerResponse, body: unknown, reply: MessageReply): Promise<void> {
    const message = scriptMessage(reply, {
      model: readModel(body),
      inputTokens: estimateTokens(JSON.stringify(body ?? '')),
    });
    const cutOffAfter = reply.cutOffAfterEvents;
    if (!isStreaming(body)) {
      if (cutOffAfter !== undefined) res.destroy();
      else sendJson(res, 200, messageJson(message));
      return;
    }
    const clientGone = new AbortController();
    res.once('close', () => clientGone.abort());
    const signal = AbortSignal.any([closing.signal, clientGone.signal]);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'request-id': requestId(),
    });
    res.flushHeaders();
    let sent = 0;
    for (const event of messageStreamEvents(message)) {
      if (cutOffAfter !== undefined && sent >= cutOffAfter) {
        res.destroy();
        return;
      }
      if (event.delayMs > 0) {
        try {
          await delay(event.delayMs, undefined, { signal });
        } catch {
          res.destroy();
          return;
        }
      }
      if (signal.aborted) return void res.destroy();
      await writeFlushed(res, encodeSseEvent(event.event, event.data), signal);
      sent++;
    }
    res.end();
  }

  server.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  await once(server, 'listening');
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${host}:${address.port}`,
    requests,
    unmatched,
    messageRequests,
    waitForMessageRequests(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const seen = messageRequests();
          if (seen.length < count) return;
          finish();
          resolve(seen);
        };
        const timer = setTimeout(() => {
          finish();
          reject(
            new Error(
              `mock-anthropic: waited ${timeoutMs} ms for ${count} message requests, got ${messageRequests().length}`,
            ),
          );
        }, timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async close() {
      closing.abort();
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}

/**
 * Waits until the chunk is handed to the socket (or the stream is abandoned), so a cut-off delivers exactly
 * the events written before it.
 */
function writeFlushed(res: ServerResponse, chunk: string, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener('abort', done);
      resolve();
    };
    signal.addEventListener('abort', done, { once: true });
    res.write(chunk, done);
  });
}

function sendError(res: ServerResponse, { error }: ErrorReply): void {
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(error.retryAfterSeconds);
  if (error.shouldRetry !== undefined) headers['x-should-retry'] = String(error.shouldRetry);
  const type = error.type ?? anthropicErrorType(error.status);
  sendJson(res, error.status, anthropicErrorBody(error.status, error.message ?? `mock ${type}`, type), headers);
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': requestId(), ...headers });
  res.end(JSON.stringify(body));
}

function summarize(view: MessagesRequestView): string {
  const text = view.lastUserText.length > 80 ? `${view.lastUserText.slice(0, 80)}…` : view.lastUserText;
  const parts = [`request #${view.index}`, `last user text ${JSON.stringify(text)}`];
  if (view.toolResults.length > 0) {
    parts.push(`tool results: ${view.toolResults.map((result) => result.toolName || result.toolUseId).join(', ')}`);
  }
  if (view.taskNotification !== undefined) parts.push('a task notification');
  return parts.join(', ');
}

function scenarioLabel(options: MockAnthropicOptions): string {
  const name = options.scenario !== undefined && 'name' in options.scenario ? options.scenario.name : undefined;
  return name ?? 'startMockAnthropic options';
}

function isMessagesCall(request: RecordedRequest): boolean {
  return request.method === 'POST' && request.path === '/v1/messages';
}

function isStreaming(body: unknown): boolean {
  return typeof body === 'object' && body !== null && Reflect.get(body, 'stream') === true;
}

function readModel(body: unknown): string {
  const model = typeof body === 'object' && body !== null ? Reflect.get(body, 'model') : undefined;
  return typeof model === 'string' ? model : 'claude-mock';
}

function requestId(): string {
  return `req_mock_${randomUUID().replaceAll('-', '')}`;
}

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import {
  createStdioLineTransport,
  DEFAULT_MAX_LINE_BYTES,
  LineSplitter,
  parseRequestLine,
  parseSidecarLine,
  type SidecarMessage,
} from '@outrigger/protocol';
import {
  assertFuzz,
  interactionAnswerText,
  LAST_INTERACTION,
  requestLineText,
  snapshotBuiltinPrototypes,
  within,
} from '@outrigger/protocol/testing';
import fc from 'fast-check';
import { TestDriverSession } from '../testDriver/testDriverSession.ts';
import { waitForMatch } from '../testing/waitForMatch.ts';
import { forkHandlers } from './forkHandlers.ts';
import { startSidecarServer } from './sidecarServer.ts';

/*
 * The running sidecar server fuzzed in process (issue 11): hostile bytes go into its stdin transport exactly
 * as they would through a pipe (invalid UTF-8, CRLF, lines split across chunks, oversized lines), its
 * sessions are test-driver sessions and its stateless reads the real ones over an empty Claude config dir,
 * so no case starts Claude Code. After every case a probe request must be answered (the server keeps
 * serving); at the end every line got exactly the answers the parser says it deserves (one per request,
 * one error per rejected or oversized line), every output line is a protocol-10 message, a full turn still
 * works and the server shuts down cleanly.
 */

/** Small, so oversized lines are cheap to make; the default limit has its own test below. */
const MAX_LINE_BYTES = 2_048;

interface Expected {
  /** Answers (ok or error) per request id. */
  readonly correlated: Map<string, number>;
  /** Answers and error events without an id. */
  uncorrelated: number;
}

class FuzzedServer {
  readonly input = new PassThrough();
  readonly output = new PassThrough();
  readonly messages: SidecarMessage[] = [];
  readonly malformed: string[] = [];
  readonly expected: Expected = { correlated: new Map(), uncorrelated: 0 };
  readonly done: Promise<void>;
  #waiters = new Set<() => void>();
  probes = 0;
  #lastQuestion: SidecarMessage | undefined;

  constructor(maxLineBytes: number) {
    const server = startSidecarServer({
      transport: createStdioLineTransport({ input: this.input, output: this.output, maxLineBytes }),
      createSession: (payload, emit) => new TestDriverSession(payload, emit),
      stateless: forkHandlers,
    });
    this.done = server.done;
    const splitter = new LineSplitter({
      maxLineBytes: Number.MAX_SAFE_INTEGER,
      onLine: (line) => {
        const parsed = parseSidecarLine(line);
        if (parsed.kind === 'message') this.#record(parsed.message);
        else this.malformed.push(line.slice(0, 200));
        for (const wake of this.#waiters) wake();
      },
    });
    this.output.on('data', (chunk: Buffer) => splitter.push(chunk));
  }

  #record(message: SidecarMessage): void {
    this.messages.push(message);
    if (message.type === 'approval_requested' || message.type === 'user_input_requested') this.#lastQuestion = message;
  }

  /** Writes `bytes` in the given chunks and records what the parser says each complete line deserves. */
  write(raw: Buffer, cuts: readonly number[], maxLineBytes: number): void {
    const bytes = this.#withLastInteraction(raw);
    for (const line of completeLines(bytes)) this.#expect(line, maxLineBytes);
    let start = 0;
    for (const cut of [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)) {
      this.input.write(bytes.subarray(start, cut));
      start = cut;
    }
    this.input.write(bytes.subarray(start));
  }

  /** The placeholders become the ids of the interaction asked last, so some answers reach it. */
  #withLastInteraction(bytes: Buffer): Buffer {
    if (!bytes.includes('@last-interaction-')) return bytes;
    const ids = (this.#lastQuestion?.payload ?? {}) as Record<string, unknown>;
    let text = bytes.toString('latin1');
    for (const [field, placeholder] of Object.entries(LAST_INTERACTION)) {
      text = text.replaceAll(placeholder, typeof ids[field] === 'string' ? ids[field] : 'none-yet');
    }
    return Buffer.from(text, 'latin1');
  }

  #expect(line: Buffer, maxLineBytes: number): void {
    if (line.length > maxLineBytes) {
      this.expected.uncorrelated += 1;
      return;
    }
    const text = line.toString('utf8', 0, line.at(-1) === 0x0d ? line.length - 1 : line.length);
    const parsed = parseRequestLine(text);
    if (parsed.kind === 'blank') return;
    const id = parsed.kind === 'request' ? parsed.request.id : parsed.id;
    if (id === undefined) this.expected.uncorrelated += 1;
    else this.expected.correlated.set(id, (this.expected.correlated.get(id) ?? 0) + 1);
  }

  /** A request that must be answered: the server is still serving. */
  async probe(timeoutMs = 5_000): Promise<SidecarMessage> {
    const id = `probe-${++this.probes}`;
    const from = this.messages.length;
    this.write(
      Buffer.from(`${JSON.stringify({ version: 10, id, type: 'close', payload: { agentSessionId: 'probe' } })}\n`),
      [],
      Number.MAX_SAFE_INTEGER,
    );
    return this.waitFor(
      (message) => message.id === id && message.type === 'ok',
      `the answer to ${id}`,
      from,
      timeoutMs,
    );
  }

  /** The first message from `fromIndex` on that matches (take the index before writing: answers may be synchronous). */
  waitFor(
    predicate: (message: SidecarMessage) => boolean,
    what: string,
    fromIndex: number,
    timeoutMs = 5_000,
  ): Promise<SidecarMessage> {
    return waitForMatch(this.messages, (wake) => this.#subscribe(wake), predicate, {
      fromIndex,
      timeoutMs,
      description: `the sidecar server's ${what}`,
    });
  }

  #subscribe(wake: () => void): () => void {
    this.#waiters.add(wake);
    return () => this.#waiters.delete(wake);
  }

  /** Answers seen per id, and answers/errors seen without one. */
  answers(): Expected {
    const correlated = new Map<string, number>();
    let uncorrelated = 0;
    for (const message of this.messages) {
      if (message.type !== 'ok' && message.type !== 'error') continue;
      if (message.id !== undefined) correlated.set(message.id, (correlated.get(message.id) ?? 0) + 1);
      else if (!isSessionEvent(message)) uncorrelated += 1;
    }
    return { correlated, uncorrelated };
  }

  /** Resolves once every answer the parser predicted arrived (stateless reads may answer late). */
  async settled(timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!sameAnswers(this.answers(), this.expected)) {
      if (Date.now() > deadline) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

function isSessionEvent(message: SidecarMessage): boolean {
  const payload = message.payload as Record<string, unknown> | undefined;
  return typeof payload?.agentSessionId === 'string';
}

function sameAnswers(actual: Expected, expected: Expected): boolean {
  if (actual.uncorrelated !== expected.uncorrelated || actual.correlated.size !== expected.correlated.size)
    return false;
  for (const [id, count] of expected.correlated) if (actual.correlated.get(id) !== count) return false;
  return true;
}

/** The lines a reader sees in `bytes`: everything before each `\n` (a trailing remainder is no line yet). */
function completeLines(bytes: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let newline = bytes.indexOf(0x0a); newline !== -1; newline = bytes.indexOf(0x0a, start)) {
    lines.push(bytes.subarray(start, newline));
    start = newline + 1;
  }
  return lines;
}

const newline = Buffer.from('\n');

/** Bytes that are not UTF-8: stray continuation bytes, overlongs, surrogates encoded, truncated sequences. */
const invalidUtf8 = fc.constantFrom(
  [0xff],
  [0xfe, 0xff],
  [0x80],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82],
  [0x00],
);

/** One line of a case, with its terminator. */
const segment: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 8, arbitrary: requestLineText.map((text) => Buffer.from(`${text}\n`)) },
  { weight: 1, arbitrary: requestLineText.map((text) => Buffer.from(`${text}\r\n`)) },
  {
    weight: 2,
    // A request whose string fields hold bytes that are not UTF-8: decoded with replacement characters.
    arbitrary: fc
      .tuple(fc.constantFrom('start', 'exec', 'close', 'recover_turn_binding'), invalidUtf8, fc.nat({ max: 99 }))
      .map(([type, bad, n]) =>
        Buffer.concat([
          Buffer.from(`{"version":10,"id":"u-${n}","type":"${type}","payload":{"agentSessionId":"s1","turnId":"`),
          Buffer.from(bad),
          Buffer.from(`","providerSessionId":"p`),
          Buffer.from(bad),
          Buffer.from('","prompt":"hi"}}\n'),
        ]),
      ),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.concat([bytes, newline])) },
  {
    weight: 1,
    // Longer than the limit: a valid request padded past it, or plain filler.
    arbitrary: fc
      .tuple(fc.integer({ min: MAX_LINE_BYTES + 1, max: MAX_LINE_BYTES * 3 }), fc.boolean())
      .map(([size, json]) =>
        Buffer.from(
          json
            ? `{"version":10,"id":"big","type":"exec","payload":{"agentSessionId":"s1","turnId":"t1","prompt":"${'p'.repeat(size)}"}}\n`
            : `${'x'.repeat(size)}\n`,
        ),
      ),
  },
);

/** A turn that asks the host something, then answers to it (once, twice, differently, hostile). */
const interactionScenario = fc.tuple(
  fc.constantFrom('approval please', 'ask-user now', 'exit-plan'),
  fc.array(interactionAnswerText, { minLength: 1, maxLength: 3 }),
);

const fuzzCase = fc.tuple(
  fc.array(segment, { minLength: 1, maxLength: 4 }),
  fc.array(fc.nat(), { maxLength: 3 }),
  fc.option(interactionScenario, { freq: 3 }),
);

const line = (id: string, type: string, payload: Record<string, unknown>): Buffer =>
  Buffer.from(`${JSON.stringify({ version: 10, id, type, payload })}\n`);

describe('sidecar server fuzz (in process, test-driver sessions)', () => {
  let configDir: string;
  const originalConfigDir = process.env.CLAUDE_CONFIG_DIR;

  before(async () => {
    // The stateless reads look for transcripts here: an empty Claude home, nothing of the user's.
    configDir = await mkdtemp(join(tmpdir(), 'outrigger-fuzz-config-'));
    process.env.CLAUDE_CONFIG_DIR = configDir;
  });

  after(async () => {
    if (originalConfigDir === undefined) delete process.env.CLAUDE_CONFIG_DIR;
    else process.env.CLAUDE_CONFIG_DIR = originalConfigDir;
    await rm(configDir, { recursive: true, force: true });
  });

  test('every line gets exactly its answer, nothing crashes, and the server keeps serving', async () => {
    const server = new FuzzedServer(MAX_LINE_BYTES);
    const untouched = snapshotBuiltinPrototypes();
    let cases = 0;
    const runs = await assertFuzz(
      'sidecar server',
      fc.asyncProperty(fuzzCase, async ([segments, cuts, scenario]) => {
        cases += 1;
        server.write(Buffer.concat(segments), cuts, MAX_LINE_BYTES);
        await server.probe();
        if (scenario) {
          const [prompt, answers] = scenario;
          const turnId = `asking-${cases}`;
          const from = server.messages.length;
          server.write(line(`${turnId}-start`, 'start', { agentSessionId: 'asking' }), [], MAX_LINE_BYTES);
          server.write(
            line(`${turnId}-exec`, 'exec', { agentSessionId: 'asking', turnId, prompt }),
            [],
            MAX_LINE_BYTES,
          );
          await server.waitFor(
            (message) =>
              (message.type === 'approval_requested' || message.type === 'user_input_requested') &&
              (message.payload as { turnId?: string }).turnId === turnId,
            `the question of ${turnId}`,
            from,
          );
          for (const answer of answers) server.write(Buffer.from(`${answer}\n`), [], MAX_LINE_BYTES);
          await server.probe();
        }
        untouched();
      }),
      // A server that stopped answering makes every shrink step wait for its probe: report the first case.
      { numRuns: 1_500, parameters: { endOnFailure: true } },
    );

    await server.settled();
    const answers = server.answers();
    assert.deepEqual(server.malformed, [], 'every line the server wrote is a protocol-10 message');
    assert.equal(answers.uncorrelated, server.expected.uncorrelated, 'one error per rejected line without an id');
    const wrong = [...new Set([...answers.correlated.keys(), ...server.expected.correlated.keys()])]
      .filter((id) => answers.correlated.get(id) !== server.expected.correlated.get(id))
      .map((id) => `${id}: ${answers.correlated.get(id) ?? 0} answers, expected ${server.expected.correlated.get(id)}`);
    assert.deepEqual(wrong, [], 'one answer per request id');
    for (const message of server.messages) {
      if (message.type !== 'error') continue;
      const error = (message.payload as { error?: unknown }).error;
      assert.ok(
        typeof error === 'string' && error.length > 0,
        `every error says what went wrong: ${JSON.stringify(message)}`,
      );
    }

    // A whole turn still runs after thousands of hostile lines.
    const from = server.messages.length;
    server.write(line('final-start', 'start', { agentSessionId: 'final' }), [], MAX_LINE_BYTES);
    await server.waitFor((message) => message.id === 'final-start' && message.type === 'ok', 'start answer', from);
    server.write(
      line('final-exec', 'exec', { agentSessionId: 'final', turnId: 'final-turn', prompt: 'hello' }),
      [],
      MAX_LINE_BYTES,
    );
    const completed = await server.waitFor(
      (message) =>
        message.type === 'turn_completed' && (message.payload as { turnId?: string }).turnId === 'final-turn',
      'turn_completed of the final turn',
      from,
    );
    assert.equal((completed.payload as { agentSessionId?: string }).agentSessionId, 'final');

    server.input.end();
    await within(server.done, 'the server to shut down after its input ended', 10_000);
    untouched();
    const count = (type: string) => server.messages.filter((message) => message.type === type).length;
    console.log(
      `sidecar server fuzz: ${cases} cases (${runs.map((run) => `${run.label} seed ${run.seed} × ${run.numRuns}`).join(', ')}): ${count('ok') - server.probes} ok and ${count('error')} error answers besides the probes, ${count('turn_completed')} turns completed, ${count('turn_failed')} failed, ${count('turn_canceled')} canceled, ${count('approval_requested') + count('user_input_requested')} interactions asked and ${count('approval_resolved') + count('user_input_resolved')} answered`,
    );
  });

  test('a line over the default 16 MiB limit is refused with an error and the next request is served', async () => {
    const server = new FuzzedServer(DEFAULT_MAX_LINE_BYTES);
    const huge = Buffer.alloc(DEFAULT_MAX_LINE_BYTES + 1, 0x61);
    const from = server.messages.length;
    server.write(Buffer.concat([huge, newline]), [1, 4_096, DEFAULT_MAX_LINE_BYTES], DEFAULT_MAX_LINE_BYTES);
    const refused = await server.waitFor((message) => message.type === 'error', 'an oversized-line error', from);
    assert.equal(
      (refused.payload as { error: string }).error,
      `sidecar request line of ${DEFAULT_MAX_LINE_BYTES + 1} bytes exceeds the size limit and was discarded`,
    );
    await server.probe();
    server.input.end();
    await within(server.done, 'the server to shut down', 10_000);
  });
});

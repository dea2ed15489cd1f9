import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { z } from 'zod';
import { encodeError, encodeEvent, encodeOk } from './encode.ts';
import { eventPayloadSchemas } from './events/index.ts';
import { parseRequestLine } from './requestLine.ts';
import { parseRequestPayload, requestPayloadSchemas } from './requests/index.ts';
import { isRequestType, type RequestType, requestTypes } from './requestTypes.ts';
import { errorPayloadSchema, requestResultSchemas } from './results.ts';
import { PROTOCOL_VERSION } from './version.ts';

/*
 * The docs are what a host in another language is written from, so their examples must be true. Every
 * ```json block of docs/protocol.md is NDJSON as it crosses the pipe; each line is checked against the zod
 * schemas: a request as the sidecar would parse it (a refused one must show the sidecar's own error), a
 * response against the result schema of the request with its id, an event against its schema. Lines the
 * sidecar writes must also be byte for byte what its encoders produce (key order included), and a payload
 * may not carry a key its schema does not declare: schemas are open to additions, so a misspelt or renamed
 * field would otherwise pass.
 */

const PROTOCOL_DOC = new URL('../../../docs/protocol.md', import.meta.url);

interface ExampleLine {
  readonly text: string;
  /** 1-based line number in the document. */
  readonly line: number;
}

/** The lines of every ```json block, blank lines skipped. */
function jsonExampleLines(markdown: string): ExampleLine[][] {
  const blocks: ExampleLine[][] = [];
  let current: ExampleLine[] | undefined;
  markdown.split('\n').forEach((text, index) => {
    if (current === undefined) {
      if (/^```json\s*$/.test(text)) current = [];
      return;
    }
    if (/^```\s*$/.test(text)) {
      blocks.push(current);
      current = undefined;
      return;
    }
    if (text.trim() !== '') current.push({ text, line: index + 1 });
  });
  assert.equal(current, undefined, 'a ```json block is not closed');
  return blocks;
}

type Outcome =
  | { kind: 'request'; type: RequestType }
  | { kind: 'refused'; error: string; id: string | undefined }
  | { kind: 'response'; type: 'ok' | 'error'; id: string | undefined }
  | { kind: 'event'; type: string };

/** The keys an object schema declares (the input side of a pipe). */
function declaredKeys(schema: z.ZodType): ReadonlySet<string> | undefined {
  if (schema instanceof z.ZodObject) return new Set(Object.keys(schema.shape));
  if (schema instanceof z.ZodPipe) return declaredKeys(schema.in as z.ZodType);
  return undefined;
}

function assertDeclared(schema: z.ZodType, payload: unknown, what: string): void {
  const keys = declaredKeys(schema);
  assert.ok(keys, `${what}: no object schema`);
  const extra = Object.keys(payload as Record<string, unknown>).filter((key) => !keys.has(key));
  assert.deepEqual(extra, [], `${what}: keys its schema does not declare`);
}

function assertSchema(schema: z.ZodType, payload: unknown, what: string): void {
  const parsed = schema.safeParse(payload);
  assert.ok(parsed.success, `${what}: ${parsed.success ? '' : z.prettifyError(parsed.error)}`);
}

/**
 * Checks one block in order. `requests` maps ids to what was asked, across blocks, so a response must answer
 * a request shown before it. Returns what each line was, for the coverage checks.
 */
function checkExampleBlock(block: readonly ExampleLine[], requests: Map<string, Outcome>): Outcome[] {
  return block.map(({ text, line }) => {
    const where = `docs/protocol.md:${line}`;
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(text) as Record<string, unknown>;
    } catch {
      assert.fail(`${where}: not JSON`);
    }
    assert.equal(value.version, PROTOCOL_VERSION, `${where}: version`);
    const { type, id, payload } = value;
    assert.ok(typeof type === 'string', `${where}: type`);

    if (isRequestType(type)) {
      const parsed = parseRequestLine(text);
      assert.notEqual(parsed.kind, 'blank', where);
      let outcome: Outcome;
      if (parsed.kind === 'invalid') {
        outcome = { kind: 'refused', error: parsed.error, id: parsed.id };
      } else if (parsed.kind === 'request') {
        const checked = parseRequestPayload(type, parsed.request.payload);
        if (checked.ok) {
          assertDeclared(requestPayloadSchemas[type], parsed.request.payload, `${where}: ${type} payload`);
          outcome = { kind: 'request', type };
        } else {
          outcome = { kind: 'refused', error: checked.error, id: parsed.request.id };
        }
      } else {
        assert.fail(where);
      }
      if (typeof id === 'string') {
        assert.ok(!requests.has(id), `${where}: request id ${id} is used twice`);
        requests.set(id, outcome);
      } else {
        assert.notEqual(outcome.kind, 'refused', `${where}: a refused example request needs an id to show its answer`);
      }
      return outcome;
    }

    if (type === 'ok' || type === 'error') {
      if (id !== undefined) assert.ok(typeof id === 'string' && id !== '', `${where}: response id`);
      const request = typeof id === 'string' ? requests.get(id) : undefined;
      if (type === 'ok') {
        assert.ok(request?.kind === 'request', `${where}: an ok answers an accepted request shown before it`);
        const schema = requestResultSchemas[request.type];
        if (schema instanceof z.ZodUndefined) {
          assert.equal(payload, undefined, `${where}: ${request.type} answers ok without a payload`);
        } else {
          assertSchema(schema, payload, `${where}: ${request.type} result`);
          assertDeclared(schema, payload, `${where}: ${request.type} result`);
        }
        assert.equal(text, encodeOk(id as string, payload), `${where}: not what encodeOk writes`);
      } else {
        assertSchema(errorPayloadSchema, payload, `${where}: error payload`);
        assertDeclared(errorPayloadSchema, payload, `${where}: error payload`);
        const { error, stage, deliveryDisposition } = payload as Record<string, string>;
        if (id !== undefined) assert.ok(request, `${where}: an error with an id answers a request shown before it`);
        if (request?.kind === 'refused') {
          assert.equal(error, request.error, `${where}: the sidecar refuses that request with another message`);
        }
        const written = encodeError(id as string | undefined, error ?? '', { stage, deliveryDisposition });
        assert.equal(text, written, `${where}: not what encodeError writes`);
      }
      return { kind: 'response', type, id: id as string | undefined };
    }

    assert.ok(type in eventPayloadSchemas, `${where}: unknown event type ${type}`);
    assert.equal(id, undefined, `${where}: events carry no id`);
    const schema = eventPayloadSchemas[type as keyof typeof eventPayloadSchemas] as z.ZodType;
    assertSchema(schema, payload, `${where}: ${type}`);
    assertDeclared(schema, payload, `${where}: ${type}`);
    assert.equal(text, encodeEvent(type, payload), `${where}: not what encodeEvent writes`);
    return { kind: 'event', type };
  });
}

describe('the JSON examples of docs/protocol.md', () => {
  const blocks = jsonExampleLines(readFileSync(PROTOCOL_DOC, 'utf8'));
  const requests = new Map<string, Outcome>();
  const outcomes: Outcome[] = [];

  test('every line is a valid request, response or event, as the sidecar would read or write it', () => {
    assert.ok(blocks.length >= 5, `the doc has its examples (${blocks.length} blocks)`);
    for (const block of blocks) outcomes.push(...checkExampleBlock(block, requests));
  });

  test('every request type has an example, and every request shown with an id is answered', () => {
    const shown = new Set(outcomes.flatMap((outcome) => (outcome.kind === 'request' ? [outcome.type] : [])));
    assert.deepEqual(
      requestTypes.filter((type) => !shown.has(type)),
      [],
      'request types without an example',
    );
    const answered = new Set(outcomes.flatMap((outcome) => (outcome.kind === 'response' ? [outcome.id] : [])));
    // The envelope example at the top stands alone.
    const unanswered = [...requests.keys()].filter((id) => !answered.has(id) && id !== 'r0');
    assert.deepEqual(unanswered, [], 'requests without their answer');
  });

  test('the checks catch a drifted example', () => {
    const check = (text: string) => () => checkExampleBlock([{ text, line: 0 }], new Map());
    // A renamed field, a value out of its enum, a key order the sidecar never writes, a wrong refusal text.
    assert.throws(check('{"version":10,"type":"turn_completed","payload":{"turnId":"t1","stop_reason":"end_turn"}}'));
    assert.throws(check('{"version":10,"type":"speed_updated","payload":{"state":"off","speed":"slow"}}'));
    assert.throws(check('{"version":10,"type":"guidance_interrupted","payload":{"turnId":"t1","turnID":"t1"}}'));
    assert.throws(check('{"type":"guidance_interrupted","version":10,"payload":{"turnId":"t1"}}'));
    assert.throws(
      check('{"version":10,"id":"x","type":"exec","payload":{"agentSessionId":"s1","turnId":"t1","promt":"hi"}}'),
    );
    const requests = new Map<string, Outcome>();
    checkExampleBlock([{ text: '{"version":10,"id":" ","type":"close"}', line: 0 }], requests);
    assert.throws(() =>
      checkExampleBlock(
        [{ text: '{"version":10,"id":" ","type":"error","payload":{"error":"something else"}}', line: 0 }],
        requests,
      ),
    );
  });
});

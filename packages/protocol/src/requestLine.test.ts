import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_REQUEST_NESTING } from './jsonNesting.ts';
import { parseRequestLine } from './requestLine.ts';
import { nestedText } from './testing/hostileJson.ts';

const budgets = { interruptTimeoutMs: 10_000, drainTimeoutMs: 8_000 };

function invalid(value: unknown) {
  return parseRequestLine(typeof value === 'string' ? value : JSON.stringify(value));
}

describe('parseRequestLine', () => {
  test('accepts a current request and fills a missing payload with {}', () => {
    assert.deepEqual(parseRequestLine('{"version":10,"id":"r1","type":"close"}'), {
      kind: 'request',
      request: { version: 10, id: 'r1', type: 'close', payload: {} },
    });
    assert.deepEqual(parseRequestLine('{"version":10,"type":"exec","payload":{"turnId":"t"}}'), {
      kind: 'request',
      request: { version: 10, type: 'exec', payload: { turnId: 't' } },
    });
  });

  test('accepts every stateless type without a session', () => {
    for (const type of ['inspect_fork_checkpoints', 'recover_turn_binding', 'fork_session']) {
      const parsed = invalid({ version: 10, id: 'x', type, payload: { providerSessionId: 'p' } });
      assert.equal(parsed.kind, 'request', type);
    }
  });

  test('blank and whitespace-only lines are skipped, not errors', () => {
    assert.deepEqual(parseRequestLine(''), { kind: 'blank' });
    assert.deepEqual(parseRequestLine(' \t\r'), { kind: 'blank' });
  });

  test('a non-object is rejected first', () => {
    assert.deepEqual(invalid([{ version: 10 }]), { kind: 'invalid', error: 'sidecar request must be an object' });
    assert.deepEqual(invalid('null'), { kind: 'invalid', error: 'sidecar request must be an object' });
    assert.deepEqual(invalid('"start"'), { kind: 'invalid', error: 'sidecar request must be an object' });
  });

  test('version must be the number 10; missing and null read as "missing"', () => {
    const cases: [unknown, string][] = [
      [undefined, 'unsupported sidecar protocol version missing'],
      [null, 'unsupported sidecar protocol version missing'],
      [9, 'unsupported sidecar protocol version 9'],
      ['10', 'unsupported sidecar protocol version 10'],
      [1, 'unsupported sidecar protocol version 1'],
    ];
    for (const [version, error] of cases) {
      assert.deepEqual(invalid({ version, type: 'nope', id: 5, payload: [] }), { kind: 'invalid', error });
    }
  });

  test('an unknown or absent type is rejected before the id and payload', () => {
    assert.deepEqual(invalid({ version: 10, type: 'shutdown', id: '', payload: 1 }), {
      kind: 'invalid',
      error: 'unsupported request type shutdown',
    });
    assert.deepEqual(invalid({ version: 10 }), { kind: 'invalid', error: 'unsupported request type ' });
    assert.deepEqual(invalid({ version: 10, type: 7 }), { kind: 'invalid', error: 'unsupported request type ' });
  });

  test('an id must be a non-empty string', () => {
    for (const id of ['', 3, null]) {
      assert.deepEqual(invalid({ version: 10, type: 'close', id, payload: 'x' }), {
        kind: 'invalid',
        error: 'sidecar request id must be a non-empty string',
      });
    }
  });

  test('a whitespace-only id is refused, and the refusal still carries it', () => {
    // The caller waits on the string it sent; answering without it would leave that waiter to time out.
    for (const id of [' ', '   ', '\t', '\u00a0']) {
      assert.deepEqual(invalid({ version: 10, type: 'close', id, payload: 'x' }), {
        kind: 'invalid',
        error: 'sidecar request id must be a non-empty string',
        id,
      });
    }
  });

  test('a payload must be a plain object', () => {
    for (const payload of [null, [], 'x', 4]) {
      assert.deepEqual(invalid({ version: 10, type: 'close', id: 'r9', payload }), {
        kind: 'invalid',
        error: 'sidecar request payload must be an object',
        id: 'r9',
      });
    }
  });

  test('cancel budgets are checked at parse time, interrupt before drain', () => {
    const cancel = (payload: Record<string, unknown>) => invalid({ version: 10, id: 'c1', type: 'cancel', payload });
    const interruptError = 'cancel interruptTimeoutMs must be a positive integer';
    const drainError = 'cancel drainTimeoutMs must be a positive integer';
    assert.deepEqual(cancel({}), { kind: 'invalid', error: interruptError, id: 'c1' });
    assert.deepEqual(cancel({ drainTimeoutMs: 'soon' }), { kind: 'invalid', error: interruptError, id: 'c1' });
    for (const bad of [0, -1, 1.5, '10', Number.MAX_SAFE_INTEGER + 1, null]) {
      assert.deepEqual(cancel({ ...budgets, interruptTimeoutMs: bad }), {
        kind: 'invalid',
        error: interruptError,
        id: 'c1',
      });
      assert.deepEqual(cancel({ ...budgets, drainTimeoutMs: bad }), { kind: 'invalid', error: drainError, id: 'c1' });
    }
    assert.equal(cancel({ ...budgets, turnId: 't' }).kind, 'request');
    assert.deepEqual(invalid({ version: 10, type: 'cancel' }), { kind: 'invalid', error: interruptError });
  });

  test('invalid JSON gets its own message and no id', () => {
    assert.deepEqual(parseRequestLine('{"version":10,"id":"r1",'), {
      kind: 'invalid',
      error: 'sidecar request is not valid JSON',
    });
  });

  test('a rejected JSON line keeps its usable id so the error can be correlated', () => {
    assert.deepEqual(invalid({ version: 9, id: 'r2', type: 'start' }), {
      kind: 'invalid',
      error: 'unsupported sidecar protocol version 9',
      id: 'r2',
    });
    assert.deepEqual(invalid({ id: 'r3', type: 'start' }), {
      kind: 'invalid',
      error: 'unsupported sidecar protocol version missing',
      id: 'r3',
    });
    assert.deepEqual(invalid({ version: 10, id: 'r4', type: 'nope' }), {
      kind: 'invalid',
      error: 'unsupported request type nope',
      id: 'r4',
    });
    assert.deepEqual(invalid({ version: 10, id: ' ', type: 'nope' }), {
      kind: 'invalid',
      error: 'unsupported request type nope',
      id: ' ',
    });
    assert.deepEqual(invalid({ version: 10, id: '', type: 'nope' }), {
      kind: 'invalid',
      error: 'unsupported request type nope',
    });
  });

  test('the id is echoed exactly as sent', () => {
    const parsed = invalid({ version: 10, id: ' r5 ', type: 'close' });
    assert.ok(parsed.kind === 'request');
    assert.equal(parsed.request.id, ' r5 ');
  });

  describe('a line nested too deep', () => {
    const tooDeep = `sidecar request nests deeper than ${MAX_REQUEST_NESTING} levels`;
    const deep = nestedText(MAX_REQUEST_NESTING + 1, 'array');

    test('is answered with its top-level id wherever the id stands, so the waiter is not left to time out', () => {
      for (const line of [
        `{"version":10,"id":"abc","type":"submit_interactive","payload":${deep}}`,
        `{"version":10,"type":"submit_interactive","payload":${deep},"id":"abc"}`,
        ` { "payload" : ${nestedText(10_000, 'object')} , "id" : "abc" } `,
        // The key is compared decoded, as JSON.parse would read it.
        `{"payload":${deep},"i\\u0064":"abc"}`,
      ]) {
        assert.deepEqual(parseRequestLine(line), { kind: 'invalid', error: tooDeep, id: 'abc' }, line.slice(0, 60));
      }
      // Any non-empty string, as for a line that parses.
      assert.deepEqual(parseRequestLine(`{"id":" ","payload":${deep}}`), { kind: 'invalid', error: tooDeep, id: ' ' });
      // Brackets and quotes inside strings do not end the deep member early or hide the id.
      assert.deepEqual(parseRequestLine(`{"a":["]}\\"[",${deep}],"id":"a\\"b"}`), {
        kind: 'invalid',
        error: tooDeep,
        id: 'a"b',
      });
    });

    test('stays uncorrelated when the top level names no usable id', () => {
      for (const line of [
        `{"version":10,"type":"close","payload":${deep}}`,
        `{"id":7,"payload":${deep}}`,
        `{"id":["abc"],"payload":${deep}}`,
        `{"id":"","payload":${deep}}`,
        // An id inside the nested value is not the line's id.
        `{"payload":{"id":"abc","inner":${deep}}}`,
        `{"payload":[${deep},{"id":"abc"}]}`,
        `[{"id":"abc"},${deep}]`,
        // The last duplicate wins, as in JSON.parse.
        `{"id":"abc","payload":${deep},"id":null}`,
        // Cut off: the top-level object never closes.
        `{"id":"abc","payload":${deep.slice(0, -1)}}`,
      ]) {
        assert.deepEqual(parseRequestLine(line), { kind: 'invalid', error: tooDeep }, line.slice(0, 60));
      }
    });
  });
});

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadScenarioFile, parseScenario, ScenarioError } from './scenarioLoader.ts';

const ok = { type: 'text', text: 'fine' };

function problemsOf(run: () => unknown): ScenarioError {
  try {
    run();
  } catch (error) {
    if (error instanceof ScenarioError) return error;
    throw error;
  }
  assert.fail('expected a ScenarioError');
}

test('a valid scenario is returned with replies normalised', () => {
  const scenario = parseScenario(
    {
      name: 'ok',
      rules: [
        {
          match: { userText: { regex: 'hi', flags: 'i' } },
          times: 2,
          reply: { content: [ok], stopReason: 'end_turn' },
        },
        { reply: { error: { status: 429, retryAfterSeconds: 3 } } },
        { reply: { stall: true } },
      ],
    },
    'ok.json',
  );
  assert.deepEqual(
    scenario.rules.map((rule) => rule.reply),
    [{ content: [ok], stopReason: 'end_turn' }, { error: { status: 429, retryAfterSeconds: 3 } }, { stall: true }],
  );
});

test('errors name the source and the field path', () => {
  const error = problemsOf(() =>
    parseScenario(
      {
        rules: [
          { reply: { content: [ok] } },
          { reply: { content: [ok] } },
          { reply: { content: [{ type: 'video', url: 'x' }] } },
        ],
      },
      'demo.json',
    ),
  );
  assert.equal(error.problems.length, 1);
  assert.equal(error.problems[0]?.path, 'rules[2].reply.content[0].type');
  assert.match(
    error.message,
    /^scenario demo\.json: rules\[2\]\.reply\.content\[0\]\.type: .*text.*thinking.*tool_use/,
  );
});

test('every problem is reported: unknown keys, bad regex, mixed reply kinds, options without content', () => {
  const error = problemsOf(() =>
    parseScenario(
      {
        rules: [
          { match: { userText: { regex: '(' } }, reply: { content: [ok] } },
          { reply: { content: [ok], error: { status: 500 } } },
          { reply: { stall: true, usage: { input_tokens: 1, output_tokens: 1 } } },
          { reply: { content: [ok] }, when: 'always' },
          { match: { userText: 3 }, reply: { content: [ok] } },
        ],
      },
      's.json',
    ),
  );
  const byPath = new Map(error.problems.map((problem) => [problem.path, problem.message]));
  assert.match(byPath.get('rules[0].match.userText') ?? '', /regular expression/);
  assert.match(byPath.get('rules[1].reply') ?? '', /exactly one of content, error or stall \(got content, error\)/);
  assert.match(byPath.get('rules[2].reply.usage') ?? '', /only allowed with content/);
  assert.match(byPath.get('rules[3]') ?? '', /when/);
  assert.match(byPath.get('rules[4].match.userText') ?? '', /none of the accepted forms fit: .*string.*object/);
});

test('JSON text is parsed; broken JSON is reported against the source', () => {
  assert.equal(parseScenario('{"rules":[]}', 'a.json').rules.length, 0);
  assert.match(
    problemsOf(() => parseScenario('{"rules":', 'a.json')).message,
    /^scenario a\.json: \(root\): not valid JSON/,
  );
});

test('loadScenarioFile names the file in its errors', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'mock-anthropic-scenario-'));
  try {
    const file = join(dir, 'broken.json');
    await writeFile(
      file,
      JSON.stringify({ rules: [{ reply: { content: [{ type: 'tool_use', name: '', input: {} }] } }] }),
    );
    assert.throws(
      () => loadScenarioFile(file),
      /^ScenarioError: scenario broken\.json: rules\[0\]\.reply\.content\[0\]\.name: /,
    );
    assert.throws(() => loadScenarioFile(join(dir, 'missing.json')), /scenario missing\.json: \(root\): cannot read/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

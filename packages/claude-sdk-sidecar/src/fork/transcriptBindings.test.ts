import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildTurnBindings, isRootUserMessage, pureTextOf } from './transcriptBindings.ts';
import { assistantMessage, systemMessage, toolResultMessage, userMessage } from './transcriptFixtures.ts';

describe('isRootUserMessage', () => {
  test('a plain prompt, as a string or as blocks, is a root', () => {
    assert.equal(isRootUserMessage(userMessage('u1', 'hello')), true);
    assert.equal(isRootUserMessage(userMessage('u1', [{ type: 'text', text: 'hi' }, { type: 'image' }])), true);
  });

  test('messages that belong to a running Turn are not roots', () => {
    const notRoots = {
      assistant: assistantMessage('a1'),
      system: systemMessage('s1'),
      'delegated agent traffic': userMessage('u', 'sub prompt', { parent_tool_use_id: 'toolu_1' }),
      synthetic: userMessage('u', 'injected', { isSynthetic: true }),
      meta: userMessage('u', 'caveat', { is_meta: true }),
      'tool result': toolResultMessage('u', 'toolu_1'),
      coordinator: userMessage('u', 'coordinate', { origin: { kind: 'coordinator' } }),
      'task notification (string)': userMessage('u', '<task-notification>\n<task-id>x</task-id>'),
      'task notification (block)': userMessage('u', [{ type: 'text', text: 'note <task-notification>x' }]),
      'interruption marker (block)': userMessage('u', [{ type: 'text', text: '[Request interrupted by user]' }]),
      'interruption marker (string)': userMessage('u', '[Request interrupted by user]'),
      'tool-use interruption marker': userMessage('u', [
        { type: 'text', text: '[Request interrupted by user for tool use]' },
      ]),
    };
    for (const [name, message] of Object.entries(notRoots)) {
      assert.equal(isRootUserMessage(message), false, name);
    }
  });

  test('other origins still count as roots', () => {
    assert.equal(isRootUserMessage(userMessage('u', 'hi', { origin: { kind: 'human' } })), true);
  });

  test('a prompt that only mentions an interruption, or carries more than its text, is a root', () => {
    for (const content of [
      '[Request interrupted by user] and then go on',
      'Why did I see [Request interrupted by user]?',
      [
        { type: 'text', text: '[Request interrupted by user]' },
        { type: 'image', source: {} },
      ],
    ]) {
      assert.equal(isRootUserMessage(userMessage('u', content)), true, JSON.stringify(content));
    }
  });
});

describe('buildTurnBindings', () => {
  test('each root opens a binding whose checkpoint follows every later message until the next root', () => {
    const bindings = buildTurnBindings([
      systemMessage('s0'),
      userMessage('u1', 'first'),
      assistantMessage('a1'),
      toolResultMessage('r1', 'toolu_1'),
      userMessage('n1', '<task-notification>done</task-notification>'),
      userMessage('syn', 'synthetic', { isSynthetic: true }),
      assistantMessage('a2'),
      userMessage('u2', 'second'),
      systemMessage('s2'),
    ]);
    assert.deepEqual(bindings, [
      { providerTurnId: 'u1', checkpointMessageId: 'a2' },
      { providerTurnId: 'u2', checkpointMessageId: 's2' },
    ]);
  });

  test('a root with nothing after it is its own checkpoint; messages without uuid are skipped', () => {
    assert.deepEqual(buildTurnBindings([userMessage('u1', 'a'), assistantMessage('')]), [
      { providerTurnId: 'u1', checkpointMessageId: 'u1' },
    ]);
  });

  test('duplicate turn ids or checkpoints are rejected', () => {
    assert.throws(() => buildTurnBindings([userMessage('u1', 'a'), userMessage('u1', 'b')]), {
      message: 'forked Claude transcript contains duplicate bindings',
    });
    assert.throws(
      () =>
        buildTurnBindings([
          userMessage('u1', 'a'),
          assistantMessage('x'),
          userMessage('u2', 'b'),
          assistantMessage('x'),
        ]),
      { message: 'forked Claude transcript contains duplicate bindings' },
    );
  });
});

describe('pureTextOf', () => {
  test('string content is taken as is; text blocks are joined by a blank line', () => {
    assert.equal(pureTextOf(userMessage('u', '  exact  ')), '  exact  ');
    assert.equal(
      pureTextOf(
        userMessage('u', [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
        ]),
      ),
      'one\n\ntwo',
    );
  });

  test('any non-text block, or no content, means there is no pure text', () => {
    assert.equal(pureTextOf(userMessage('u', [{ type: 'text', text: 'x' }, { type: 'image' }])), undefined);
    assert.equal(pureTextOf(userMessage('u', [])), undefined);
    assert.equal(pureTextOf(userMessage('u', undefined)), undefined);
  });
});

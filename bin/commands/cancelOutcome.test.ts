import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cancelDispositions, dispatchPhases } from '@outrigger/protocol';
import { cancelOutcomeText } from './cancelOutcome.ts';

test('a canceled turn says it stopped and what Claude Code was doing', () => {
  const stopped = (dispatchPhase: (typeof dispatchPhases)[number]) =>
    cancelOutcomeText({ canceled: true, disposition: 'provider_active', dispatchPhase });
  assert.equal(
    stopped('waiting_approval'),
    'Stopped. The turn was canceled while Claude Code was waiting for your approval.',
  );
  assert.equal(
    stopped('waiting_input'),
    'Stopped. The turn was canceled while Claude Code was waiting for your answer.',
  );
  assert.equal(stopped('streaming'), 'Stopped. The turn was canceled while Claude Code was answering.');
  assert.equal(stopped('running_tool'), 'Stopped. The turn was canceled while Claude Code was running a tool.');
  assert.equal(stopped('unknown'), 'Stopped. The turn was canceled.');
  assert.equal(
    stopped('terminal'),
    'Stopped. The turn was canceled after its answer, with the background work it had left running.',
  );
});

test('a cancel before Claude Code took the turn says so', () => {
  assert.equal(
    cancelOutcomeText({ canceled: true, disposition: 'pre_accept', dispatchPhase: 'queued' }),
    'Stopped. Your message was withdrawn before Claude Code received it.',
  );
  assert.equal(
    cancelOutcomeText({ canceled: true, disposition: 'pre_accept', dispatchPhase: 'dispatched' }),
    'Stopped. The turn was canceled before Claude Code began answering.',
  );
  assert.equal(
    cancelOutcomeText({ canceled: true, disposition: 'pre_accept', dispatchPhase: 'pending_goal' }),
    'Stopped. The goal command was withdrawn before it started.',
  );
});

test('a cancel that stopped nothing says why', () => {
  assert.equal(
    cancelOutcomeText({ canceled: false, disposition: 'absent', dispatchPhase: 'unknown' }),
    'Nothing to stop: the turn had already ended.',
  );
  assert.equal(
    cancelOutcomeText({ canceled: false, disposition: 'mismatch', dispatchPhase: 'streaming' }),
    'Not stopped: a different turn is running in this session.',
  );
  assert.match(
    cancelOutcomeText({ canceled: false, disposition: 'provider_state_lost', dispatchPhase: 'streaming' }),
    /^Not stopped: Claude Code had taken the turn, but the sidecar has lost its hold on it/,
  );
});

test('no outcome the sidecar can report prints a protocol word', () => {
  const protocolWords = new RegExp(`\\b(${[...cancelDispositions, ...dispatchPhases].join('|')})\\b|_`);
  for (const canceled of [true, false]) {
    for (const disposition of cancelDispositions) {
      for (const dispatchPhase of dispatchPhases) {
        const text = cancelOutcomeText({ canceled, disposition, dispatchPhase });
        assert.doesNotMatch(text, protocolWords, `${canceled} ${disposition} ${dispatchPhase}: ${text}`);
        assert.match(text, /^(Stopped\. [A-Z]|Not stopped: \w|Nothing to stop: \w).*\.$/, text);
        assert.equal(text.startsWith('Stopped.'), canceled, `${canceled} ${disposition} ${dispatchPhase}: ${text}`);
      }
    }
  }
});

test('when the chat was asking the user, the wording says Claude Code waited for that', () => {
  // The sidecar's phase can read `streaming` while Claude Code waits on the permission it asked for.
  const result = { canceled: true, disposition: 'provider_active', dispatchPhase: 'streaming' } as const;
  assert.equal(cancelOutcomeText(result), 'Stopped. The turn was canceled while Claude Code was answering.');
  assert.equal(
    cancelOutcomeText(result, 'approval'),
    'Stopped. The turn was canceled while Claude Code was waiting for your approval.',
  );
  assert.equal(
    cancelOutcomeText(result, 'answer'),
    'Stopped. The turn was canceled while Claude Code was waiting for your answer.',
  );
  // Only a stop of an accepted turn is about what Claude Code was doing.
  const absent = { canceled: false, disposition: 'absent', dispatchPhase: 'unknown' } as const;
  assert.equal(cancelOutcomeText(absent, 'approval'), 'Nothing to stop: the turn had already ended.');
});

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import {
  createLinkedLineTransports,
  encodeError,
  encodeEvent,
  encodeOk,
  type LineTransport,
  SidecarClient,
  type SidecarEventPayload,
  type SidecarEventType,
} from '@outrigger/protocol';
import { createChatRenderer } from './chatRenderer.ts';
import { CANCEL_BUDGETS, ChatSession } from './chatSession.ts';
import { approvalOptions, interactionRequest } from './interactionTestSupport.ts';
import { LineReader } from './lineReader.ts';
import { TerminalConsole } from './terminalConsole.ts';
import { plainText } from './terminalText.ts';

interface Request {
  id: string;
  type: string;
  payload: Record<string, unknown>;
}

/** The sidecar's side of the connection: records requests and lets each test script the answers. */
class FakeSidecar {
  readonly requests: Request[] = [];
  readonly #transport: LineTransport;
  readonly #waiters: (() => void)[] = [];
  onRequest: (request: Request) => void = (request) => this.ok(request);

  constructor(transport: LineTransport) {
    this.#transport = transport;
    transport.start({
      onLine: (line) => {
        const request = JSON.parse(line) as Request;
        this.requests.push(request);
        this.onRequest(request);
        for (const wake of this.#waiters.splice(0)) wake();
      },
      onClose: () => undefined,
    });
  }

  ok(request: Request, payload?: Record<string, unknown>): void {
    this.#transport.send(encodeOk(request.id, payload));
  }

  sendError(request: Request, message: string): void {
    this.#transport.send(encodeError(request.id, message));
  }

  emit<T extends SidecarEventType>(type: T, payload: SidecarEventPayload<T>): void {
    this.#transport.send(encodeEvent(type, payload));
  }

  async waitFor(type: string, count = 1): Promise<Request> {
    const deadline = Date.now() + 2_000;
    for (;;) {
      const found = this.requests.filter((request) => request.type === type);
      if (found.length >= count) return found[count - 1] as Request;
      if (Date.now() > deadline)
        throw new Error(`no ${type} request #${count}; saw ${this.requests.map((r) => r.type)}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 20);
      });
    }
  }
}

function setup(options: { interactive?: boolean } = {}) {
  const [clientEnd, sidecarEnd] = createLinkedLineTransports();
  const sidecar = new FakeSidecar(sidecarEnd);
  const client = new SidecarClient(clientEnd, { defaultTimeoutMs: 2_000 });
  const reader = new LineReader();
  let output = '';
  /** The same transcript as a colour terminal receives it, through the chat's console. */
  let screen = '';
  const terminalConsole = new TerminalConsole({
    output: new Writable({
      write(chunk, _encoding, callback) {
        screen += String(chunk);
        callback();
      },
    }),
    color: true,
  });
  const prompts: string[] = [];
  /** `withdrawn:<prompt>` at each `withdrawPrompt`, in order with whatever a test adds. */
  const log: string[] = [];
  const session = new ChatSession({
    client,
    agentSessionId: 'session-1',
    reader,
    renderer: createChatRenderer({
      write: (segments) => {
        output += plainText(segments);
        terminalConsole.write(segments);
      },
    }),
    showPrompt: (prompt, purpose) => {
      prompts.push(`${purpose}:${prompt}`);
    },
    withdrawPrompt: () => {
      log.push(`withdrawn:${prompts.at(-1) ?? ''}`);
    },
    interactive: options.interactive,
  });
  /** Waits until `condition` holds (2 s at most). */
  const until = async (condition: () => boolean, what: string) => {
    const deadline = Date.now() + 2_000;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`${what} did not happen; prompts: ${prompts.join(' | ')}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  /** Waits until `count` prompts have been shown. */
  const untilPrompts = (count: number) => until(() => prompts.length >= count, `${count} prompts`);
  return {
    sidecar,
    client,
    reader,
    session,
    output: () => output,
    screen: () => screen,
    prompts,
    log,
    until,
    untilPrompts,
  };
}

/** Runs the chat and sends a first message; submits are answered `answered`. Resolves with the turn's id. */
async function startTurn(t: ReturnType<typeof setup>): Promise<{ running: Promise<void>; turnId: string }> {
  t.sidecar.onRequest = (request) =>
    request.type === 'submit_interactive' ? t.sidecar.ok(request, { disposition: 'answered' }) : t.sidecar.ok(request);
  const running = t.session.run();
  t.reader.push('run something');
  const exec = await t.sidecar.waitFor('exec');
  return { running, turnId: String(exec.payload.turnId) };
}

/** The sidecar asks a Bash approval (request `req-1`) for `command` in that turn. */
function emitApproval(t: ReturnType<typeof setup>, turnId: string, command: string): void {
  const input = { toolName: 'Bash', command };
  t.sidecar.emit(
    'approval_requested',
    interactionRequest({ turnId, requestId: 'req-1', toolName: 'Bash', input, options: approvalOptions }),
  );
}

async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within 3 s`)), 3_000);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

test('a typed line becomes an exec with a fresh turn id; the next prompt waits for the terminal event', async () => {
  const { sidecar, reader, session, output, prompts } = setup();
  const running = session.run();
  reader.push('hello there');
  reader.push('second');
  reader.end();
  const exec = await sidecar.waitFor('exec');
  const turnId = String(exec.payload.turnId);
  assert.match(turnId, /^[0-9a-f-]{36}$/);
  assert.deepEqual(exec.payload, { agentSessionId: 'session-1', turnId, prompt: 'hello there' });
  sidecar.emit('assistant_delta', { turnId, messageId: 'm1', content: 'Hi!', snapshot: 'Hi!' });
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(sidecar.requests.filter((request) => request.type === 'exec').length, 1, 'second line waits');
  sidecar.emit('turn_completed', { turnId, stopReason: 'end_turn' });
  const second = await sidecar.waitFor('exec', 2);
  assert.equal(second.payload.prompt, 'second');
  assert.notEqual(second.payload.turnId, turnId);
  sidecar.emit('turn_completed', { turnId: String(second.payload.turnId), stopReason: 'end_turn' });
  await within(running, 'the chat after EOF');
  assert.match(output(), /^Hi!\n— done \(end_turn\)/);
  assert.deepEqual(prompts, ['message:› ', 'message:› '], 'no prompt once input has ended');
});

test('an approval is asked inline and the typed key is submitted for that request', async () => {
  const t = setup();
  const { sidecar, reader, output } = t;
  const { running, turnId } = await startTurn(t);
  emitApproval(t, turnId, 'touch x');
  reader.push('what?');
  reader.push('s');
  const submit = await sidecar.waitFor('submit_interactive');
  assert.deepEqual(submit.payload, {
    agentSessionId: 'session-1',
    turnId,
    requestId: 'req-1',
    action: 'allow',
    optionId: 'allow_always',
    payload: {},
  });
  sidecar.emit('turn_completed', { turnId, stopReason: 'end_turn' });
  reader.end();
  await within(running, 'the chat');
  assert.match(output(), /Claude wants to use Bash: touch x/);
});

test('an approval answered with a word it does not take says what it takes, asks again, and Enter takes the default', async () => {
  const t = setup();
  const { sidecar, reader, output, prompts } = t;
  const { running, turnId } = await startTurn(t);
  emitApproval(t, turnId, 'touch x');
  reader.push('sure');
  reader.push('');
  const submit = await sidecar.waitFor('submit_interactive');
  assert.equal(submit.payload.optionId, 'allow', 'Enter allowed once');
  sidecar.emit('turn_completed', { turnId, stopReason: 'end_turn' });
  reader.end();
  await within(running, 'the chat');
  assert.match(
    output(),
    /Claude wants to use Bash: touch x\nNot a choice\. Type s \(Allow for session\), a or y \(Allow\), r or n \(Reject\), or press Enter for Allow\.\n→ Allow\n/,
  );
  const asked = prompts.filter((prompt) => prompt.startsWith('answer:'));
  assert.equal(asked.length, 2, 'asked again after the refused word');
  assert.equal(sidecar.requests.filter((request) => request.type === 'submit_interactive').length, 1);
});

test('Ctrl-C at an approval takes its prompt away and says Claude Code was waiting for the approval', async () => {
  const t = setup();
  const { sidecar, reader, session, output } = t;
  const { running, turnId } = await startTurn(t);
  sidecar.onRequest = (request) => {
    if (request.type !== 'cancel') return sidecar.ok(request);
    t.log.push('cancel');
    sidecar.emit('turn_canceled', { turnId });
    // What the sidecar can answer when Claude Code's own output overtook its permission request.
    sidecar.ok(request, {
      canceled: true,
      disposition: 'provider_active',
      turnId,
      providerTurnId: 'p1',
      dispatchPhase: 'streaming',
    });
  };
  emitApproval(t, turnId, 'rm -rf build');
  await t.untilPrompts(2);
  session.interrupt();
  await t.until(() => output().includes('Stopped.'), 'the cancel outcome');
  reader.end();
  await within(running, 'the chat');
  assert.deepEqual(
    t.log.slice(0, 2),
    ['withdrawn:answer:Allow for [s]ession / [A]llow / [r]eject (Enter: Allow) > ', 'cancel'],
    'the prompt goes before the cancel is sent',
  );
  assert.match(
    output(),
    /Stopping…\n— canceled[^\n]*\nStopped\. The turn was canceled while Claude Code was waiting for your approval\.\n$/,
  );
  assert.equal(sidecar.requests.filter((request) => request.type === 'submit_interactive').length, 0);
});

test('a cancel that did not stop the turn asks the open approval again', async () => {
  const t = setup();
  const { sidecar, reader, session, output, prompts } = t;
  const { running, turnId } = await startTurn(t);
  sidecar.onRequest = (request) => {
    if (request.type === 'submit_interactive') return sidecar.ok(request, { disposition: 'answered' });
    if (request.type !== 'cancel') return sidecar.ok(request);
    sidecar.ok(request, {
      canceled: false,
      disposition: 'mismatch',
      turnId,
      providerTurnId: '',
      dispatchPhase: 'streaming',
    });
  };
  emitApproval(t, turnId, 'ls');
  await t.untilPrompts(2);
  session.interrupt();
  await sidecar.waitFor('cancel');
  await t.untilPrompts(3);
  assert.equal(prompts[2], prompts[1], 'the same approval prompt again');
  reader.push('n');
  const submit = await sidecar.waitFor('submit_interactive');
  assert.equal(submit.payload.optionId, 'reject');
  sidecar.emit('turn_completed', { turnId, stopReason: 'end_turn' });
  reader.end();
  await within(running, 'the chat');
  assert.match(output(), /Not stopped: a different turn is running in this session\.\n→ Reject\n/);
});

test('a cancel that stopped nothing and a cancel that failed are said in words', async () => {
  for (const [answer, expected] of [
    [
      { canceled: false, disposition: 'absent', dispatchPhase: 'unknown' },
      /Nothing to stop: the turn had already ended\.\n/,
    ],
    ['error', /Could not stop the turn: Claude SDK exact cancellation remains unresolved/],
  ] as const) {
    const { sidecar, reader, session, output } = setup();
    let execTurnId = '';
    sidecar.onRequest = (request) => {
      if (request.type !== 'cancel') return sidecar.ok(request);
      if (answer === 'error') {
        sidecar.sendError(request, `Claude SDK exact cancellation remains unresolved for turn ${execTurnId}`);
      } else {
        sidecar.ok(request, { ...answer, turnId: execTurnId, providerTurnId: '' });
      }
      sidecar.emit('turn_completed', { turnId: execTurnId, stopReason: 'end_turn' });
    };
    const running = session.run();
    reader.push('slow');
    execTurnId = String((await sidecar.waitFor('exec')).payload.turnId);
    session.interrupt();
    await sidecar.waitFor('cancel');
    reader.end();
    await within(running, 'the chat');
    assert.match(output(), expected);
    assert.doesNotMatch(output(), /cancel: |absent|unresolved \(/);
  }
});

test('an answer the sidecar did not apply is said in words', async () => {
  const t = setup();
  const { sidecar, reader, output } = t;
  const { running, turnId } = await startTurn(t);
  sidecar.onRequest = (request) =>
    request.type === 'submit_interactive' ? sidecar.ok(request, { disposition: 'superseded' }) : sidecar.ok(request);
  emitApproval(t, turnId, 'ls');
  reader.push('a');
  await sidecar.waitFor('submit_interactive');
  await t.until(() => output().includes('(answer not applied'), 'the disposition line');
  sidecar.emit('turn_completed', { turnId, stopReason: 'end_turn' });
  reader.end();
  await within(running, 'the chat');
  assert.match(
    output(),
    /\(answer not applied: Claude Code had stopped waiting for it, the turn was canceled or closed\)\n/,
  );
  assert.doesNotMatch(output(), /: superseded\)/);
});

test('with no input left, a question is declined', async () => {
  const { sidecar, reader, session, output } = setup();
  sidecar.onRequest = (request) =>
    request.type === 'submit_interactive' ? sidecar.ok(request, { disposition: 'answered' }) : sidecar.ok(request);
  const running = session.run();
  reader.push('ask me');
  reader.end();
  const exec = await sidecar.waitFor('exec');
  const turnId = String(exec.payload.turnId);
  const input = { questions: [{ id: 'q1', question: 'Which?', options: [{ label: 'A' }] }] };
  sidecar.emit(
    'user_input_requested',
    interactionRequest({ turnId, requestId: 'req-2', toolCallId: 'toolu_2', toolName: 'AskUserQuestion', input }),
  );
  const submit = await sidecar.waitFor('submit_interactive');
  assert.equal(submit.payload.action, 'reject');
  sidecar.emit('turn_completed', { turnId, stopReason: 'end_turn' });
  await within(running, 'the chat');
  assert.match(output(), /\(no input left: declined\)/);
});

test('Ctrl-C during a turn cancels it with the budgets and says in words how it stopped', async () => {
  const { sidecar, reader, session, output } = setup();
  let execTurnId = '';
  sidecar.onRequest = (request) => {
    if (request.type !== 'cancel') return sidecar.ok(request);
    sidecar.emit('turn_canceled', { turnId: execTurnId });
    sidecar.ok(request, {
      canceled: true,
      disposition: 'provider_active',
      turnId: execTurnId,
      providerTurnId: 'p1',
      dispatchPhase: 'streaming',
    });
  };
  const running = session.run();
  reader.push('slow');
  const exec = await sidecar.waitFor('exec');
  execTurnId = String(exec.payload.turnId);
  session.interrupt();
  session.interrupt();
  const cancel = await sidecar.waitFor('cancel');
  assert.deepEqual(cancel.payload, { agentSessionId: 'session-1', turnId: execTurnId, ...CANCEL_BUDGETS });
  reader.end();
  await within(running, 'the chat');
  assert.equal(sidecar.requests.filter((request) => request.type === 'cancel').length, 1);
  assert.match(
    output(),
    /Stopping…\nStill stopping…\n— canceled[^\n]*\nStopped\. The turn was canceled while Claude Code was answering\.\n$/,
  );
});

test('Ctrl-C at the prompt, /quit and the sidecar going away each end the chat', async () => {
  const first = setup();
  const running = first.session.run();
  await new Promise((resolve) => setTimeout(resolve, 10));
  first.session.interrupt();
  await within(running, 'the chat after Ctrl-C');

  const second = setup();
  second.reader.push('/help');
  second.reader.push('/nope');
  second.reader.push('/quit');
  second.reader.push('never sent');
  await within(second.session.run(), 'the chat after /quit');
  assert.match(second.output(), /\/quit {3}close the session/);
  assert.match(second.output(), /unknown command \/nope/);
  assert.equal(second.sidecar.requests.length, 0);

  const third = setup();
  const chatting = third.session.run();
  third.reader.push('hello');
  await third.sidecar.waitFor('exec');
  await third.client.close();
  await within(chatting, 'the chat after the sidecar closed');
});

test('at a terminal, a line typed ahead during a turn is the next message, never the answer to an approval', async () => {
  const t = setup({ interactive: true });
  const { sidecar, reader, session, output, prompts } = t;
  const { running, turnId } = await startTurn(t);
  assert.equal(session.busy, true);
  // Typed while the answer streams, before the approval is shown.
  reader.push('a');
  emitApproval(t, turnId, 'rm -rf build');
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(sidecar.requests.filter((request) => request.type === 'submit_interactive').length, 0);
  reader.push('r');
  const submit = await sidecar.waitFor('submit_interactive');
  assert.equal(submit.payload.optionId, 'reject');
  sidecar.emit('turn_completed', { turnId, stopReason: 'end_turn' });
  const next = await sidecar.waitFor('exec', 2);
  assert.equal(next.payload.prompt, 'a');
  reader.end();
  sidecar.emit('turn_completed', { turnId: String(next.payload.turnId), stopReason: 'end_turn' });
  await within(running, 'the chat');
  assert.equal(session.busy, false);
  assert.match(output(), /— done \(end_turn\)[^\n]*\n› a\n/, 'the typed-ahead message is shown as it is sent');
  // The typed-ahead message needs no prompt of its own; after it input has ended.
  assert.deepEqual(prompts, ['message:› ', 'answer:Allow for [s]ession / [A]llow / [r]eject (Enter: Allow) > ']);
});

test('nothing the model, a tool or the sidecar sends can put a control sequence on the screen', async () => {
  const t = setup();
  const { sidecar, reader, screen } = t;
  const { running, turnId } = await startTurn(t);
  const crafted = 'ls \x1b[2K\x1b[1A\r\x1b]0;title\x07\x9b31m\u202e';
  sidecar.emit('assistant_delta', { turnId, messageId: 'm1', content: `**${crafted}**\n`, snapshot: '' });
  sidecar.emit('assistant_completed', { turnId, messageId: 'm1', content: '' });
  sidecar.emit('plan_updated', { turnId, entries: [{ id: '1', content: crafted, status: 'pending' }] });
  emitApproval(t, turnId, `${crafted} && rm -rf ~`);
  reader.push('r');
  await sidecar.waitFor('submit_interactive');
  sidecar.emit('turn_failed', { turnId, error: crafted });
  reader.end();
  await within(running, 'the chat');
  // The only escape sequences left are the chat's own styles (SGR), and the crafted text is all visible.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for what reached the terminal
  const withoutStyles = screen().replace(/\x1b\[[0-9;]*m/g, '');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for what reached the terminal
  assert.doesNotMatch(withoutStyles, /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/);
  const shownCrafted = 'ls ␛[2K␛[1A␍␛]0;title␇\ufffd31m\ufffd';
  assert.match(withoutStyles, new RegExp(`Claude wants to use Bash: ${escapeRegExp(shownCrafted)} && rm -rf ~\n`));
  assert.equal(withoutStyles.split(shownCrafted).length - 1, 4, 'answer, plan, approval and failure each show it');
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitForMatch } from '@outrigger/claude-sdk-sidecar/testing';
import type { HostClient, SseFrame } from '@outrigger/host-api';
import { startMockAnthropic } from '@outrigger/mock-anthropic';
import { createClaudeTestHome } from '@outrigger/mock-anthropic/testing';
import { bashCall, caseScripts, slowText, text } from '../../src/sessions/testing/scriptedModel.ts';
import { assertNoProcessesLeft, killMarkedProcesses } from './processes.ts';
import { type ServeChild, spawnServe, testDriverServeEnv } from './serveChild.ts';

/*
 * The bounded soak of issue 11: two `outrigger serve` processes at once — one whose sessions run real Claude
 * Code against mock-anthropic (at most 4), one whose sidecar runs test-driver sessions — and on every session
 * a worker that, until the deadline, runs turns chosen by a seeded generator: plain answers, cancels
 * mid-stream, approvals allowed or refused, prompts queued behind a running turn (some removed again), steers.
 * Every session has one SSE client reading its stream from the start for the whole soak (reconnecting with
 * Last-Event-ID when cut). At the end the report says what was lost or stuck: each client's log against a
 * fresh replay of the store's, each turn's dones, what is still open. The test asserts on it; the bench reads
 * the memory the soak's processes used.
 */

export interface SoakOptions {
  readonly durationMs: number;
  /** Sessions on real Claude Code (at most 4: each is a Claude Code process). */
  readonly realSessions: number;
  readonly driverSessions: number;
  readonly seed: number;
  /** Called every `sampleEveryMs` with the pids of both serve processes (the bench reads their memory). */
  readonly onSample?: (hosts: { real: number; driver: number }) => void | Promise<void>;
  readonly sampleEveryMs?: number;
}

export interface SoakReport {
  readonly seed: number;
  readonly durationMs: number;
  /** Steps taken, by session kind and action (`real cancel`, `driver steer`, …). */
  readonly actions: Record<string, number>;
  readonly outcomes: Record<string, number>;
  /** Stored session events at the end, over all sessions. */
  readonly events: number;
  /** Events a client's live log lacks, has twice, or has different from the store's replay. */
  readonly lostEvents: number;
  readonly duplicatedEvents: number;
  readonly mismatchedEvents: number;
  /** Turns the log names that never got a done. */
  readonly stuckTurns: string[];
  /** Turns with more than one done, or their own terminal events after it. */
  readonly badDones: string[];
  readonly turns: number;
  /** What is still pending or queued at the end. */
  readonly leftOpen: string[];
  /** Worker steps that failed (a wait that timed out, an unexpected answer). */
  readonly errors: string[];
}

/** Between two steps of a test-driver session's worker. */
const DRIVER_PAUSE_MS = 30;

type Action = 'answer' | 'cancel' | 'approve' | 'refuse' | 'queue' | 'unqueue' | 'steer';

/** A small seeded generator (mulberry32): the same seed, the same choices. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const dataOf = <T = Record<string, unknown>>(frame: SseFrame | undefined) => frame?.data as T;

/** One client reading a session's stream from the start until stopped, reconnecting where it was cut. */
class StreamClient {
  readonly frames: SseFrame[] = [];
  readonly #waiters = new Set<() => void>();
  readonly #controller = new AbortController();
  reconnects = 0;
  readonly done: Promise<void>;

  constructor(client: HostClient, sessionId: string) {
    this.done = this.#read(client, sessionId);
  }

  async #read(client: HostClient, sessionId: string): Promise<void> {
    const signal = this.#controller.signal;
    while (!signal.aborted) {
      const last = this.frames.at(-1)?.id;
      try {
        for await (const frame of client.stream('sessionEvents', {
          params: { id: sessionId },
          lastEventId: last === undefined ? 0 : Number(last),
          signal,
        })) {
          if (frame.event === 'heartbeat') continue;
          this.frames.push(frame);
          for (const wake of this.#waiters) wake();
        }
      } catch {
        // aborted, or the stream broke: read on from the last event seen
      }
      if (!signal.aborted) {
        this.reconnects += 1;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  /** The first frame from `from` on that matches. */
  waitFor(predicate: (frame: SseFrame) => boolean, what: string, from: number, timeoutMs = 60_000): Promise<SseFrame> {
    const subscribe = (wake: () => void) => {
      this.#waiters.add(wake);
      return () => this.#waiters.delete(wake);
    };
    return waitForMatch(this.frames, subscribe, predicate, {
      fromIndex: from,
      timeoutMs,
      description: what,
      label: (frame) => frame.event,
    });
  }

  stop(): Promise<void> {
    this.#controller.abort();
    return this.done;
  }
}

const isDone = (turnId: string) => (frame: SseFrame) =>
  frame.event === 'done' && dataOf<{ turnId?: string }>(frame).turnId === turnId;

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const random = seeded(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const cases = caseScripts();
  const mock = await startMockAnthropic({ rules: [cases.rule] });
  const home = await createClaudeTestHome({ baseUrl: mock.url });
  const root = await mkdtemp(join(tmpdir(), 'outrigger-soak-'));
  const mark = randomUUID();
  const driverWork = join(root, 'driver-work');
  await mkdir(driverWork);
  const actions: Record<string, number> = {};
  const outcomes: Record<string, number> = {};
  const errors: string[] = [];
  const count = (table: Record<string, number>, key: string) => {
    table[key] = (table[key] ?? 0) + 1;
  };
  let real: ServeChild | undefined;
  let driver: ServeChild | undefined;
  const streams: { client: HostClient; sessionId: string; stream: StreamClient }[] = [];
  const started = Date.now();
  try {
    [real, driver] = await Promise.all([
      spawnServe({ args: ['--port', '0', '--data-dir', join(root, 'real')], env: home.env, mark }),
      spawnServe({
        args: ['--port', '0', '--data-dir', join(root, 'driver')],
        env: testDriverServeEnv(root),
        mark,
      }),
    ]);
    const open = async (host: ServeChild, cwd: string, title: string) => {
      const { id } = await host.client.call('createSession', { body: { cwd, title } });
      const entry = { client: host.client, sessionId: id, stream: new StreamClient(host.client, id) };
      streams.push(entry);
      return entry;
    };
    const sessions = [
      ...(
        await Promise.all(
          Array.from({ length: Math.min(4, options.realSessions) }, (_, i) =>
            open(real as ServeChild, home.cwd, `real ${i}`),
          ),
        )
      ).map((entry) => ({ ...entry, kind: 'real' as const })),
      ...(
        await Promise.all(
          Array.from({ length: options.driverSessions }, (_, i) =>
            open(driver as ServeChild, driverWork, `driver ${i}`),
          ),
        )
      ).map((entry) => ({ ...entry, kind: 'driver' as const })),
    ];

    const deadline = started + options.durationMs;
    const sampler =
      options.onSample === undefined
        ? undefined
        : setInterval(() => {
            void options.onSample?.({ real: real?.child.pid ?? 0, driver: driver?.child.pid ?? 0 });
          }, options.sampleEveryMs ?? 2_000);

    const worker = async (session: (typeof sessions)[number]) => {
      const { client, sessionId, stream, kind } = session;
      const params = { id: sessionId };
      const prompt = (label: string, script: Parameters<typeof cases.prompt>[1], driverPrompt: string) =>
        kind === 'real' ? cases.prompt(label, script) : driverPrompt;
      const post = (body: { prompt: string; mode?: 'steer' }) => client.call('postTurn', { params, body });
      const awaitDone = async (turnId: string, from: number) => {
        const done = await stream.waitFor(isDone(turnId), `the done of ${turnId}`, from);
        count(outcomes, dataOf<{ outcome: string }>(done).outcome);
      };
      const answerAsked = async (from: number, allow: boolean) => {
        const asked = await stream.waitFor(
          (frame) => frame.event === 'permission_request',
          'a permission request',
          from,
        );
        const requestId = dataOf<{ interaction: { requestId: string } }>(asked).interaction.requestId;
        await client.call('answerInteraction', {
          params: { id: sessionId, requestId },
          body: allow
            ? { action: 'allow', optionId: 'allow', payload: {} }
            : { action: 'reject', optionId: 'reject', payload: { message: 'not now' } },
        });
      };
      while (Date.now() < deadline) {
        // A test-driver turn takes milliseconds: a pause keeps those workers from taking a whole core.
        if (kind === 'driver') await new Promise((resolve) => setTimeout(resolve, DRIVER_PAUSE_MS));
        const action: Action = pick(['answer', 'answer', 'cancel', 'approve', 'refuse', 'queue', 'unqueue', 'steer']);
        count(actions, `${kind} ${action}`);
        const from = stream.frames.length;
        try {
          switch (action) {
            case 'answer': {
              const { turnId } = await post({ prompt: prompt('answer', { prompt: text('An answer.') }, 'hello') });
              await awaitDone(turnId, from);
              break;
            }
            case 'cancel': {
              const { turnId } = await post({
                prompt: prompt('a long answer', { prompt: slowText(30) }, 'approval please'),
              });
              await stream.waitFor(
                (frame) => frame.event === (kind === 'real' ? 'text' : 'permission_request'),
                'the turn under way',
                from,
              );
              await client.call('cancelTurn', { params: { id: sessionId, turnId }, body: {} });
              await awaitDone(turnId, from);
              break;
            }
            case 'approve':
            case 'refuse': {
              const { turnId } = await post({
                prompt: prompt(
                  'make a file',
                  { prompt: bashCall(`touch soak-${randomUUID()}.txt`), afterTool: () => text('Made.') },
                  'approval please',
                ),
              });
              await answerAsked(from, action === 'approve');
              await awaitDone(turnId, from);
              break;
            }
            case 'queue':
            case 'unqueue': {
              const first = await post({ prompt: prompt('first', { prompt: slowText(15) }, 'approval please') });
              const second = await post({ prompt: prompt('second', { prompt: text('Second.') }, 'hello') });
              if (action === 'unqueue' && second.queued) {
                const removed = await client.call('cancelTurn', {
                  params: { id: sessionId, turnId: second.turnId },
                  body: {},
                });
                if (removed.canceled) count(outcomes, 'removed from the queue');
              }
              if (kind === 'driver') await answerAsked(from, true);
              await awaitDone(first.turnId, from);
              await awaitDone(second.turnId, from);
              break;
            }
            case 'steer': {
              const { turnId } = await post({ prompt: prompt('steered', { prompt: slowText(15) }, 'approval please') });
              await stream.waitFor(
                (frame) => frame.event === (kind === 'real' ? 'text' : 'permission_request'),
                'the turn under way',
                from,
              );
              const steered = await post({
                prompt: prompt('also this', { prompt: text('Steered.') }, 'hello'),
                mode: 'steer',
              });
              if (kind === 'driver') await answerAsked(from, true);
              await awaitDone(turnId, from);
              if (steered.turnId !== turnId) await awaitDone(steered.turnId, from);
              break;
            }
          }
        } catch (error) {
          errors.push(`${kind} ${action}: ${error instanceof Error ? error.message : String(error)}`);
          // Whatever the step left running is ended before the next one starts.
          const snapshot = await client.call('getSession', { params }).catch(() => undefined);
          if (snapshot?.openTurn) {
            await client
              .call('cancelTurn', { params: { id: sessionId, turnId: snapshot.openTurn.id }, body: {} })
              .catch(() => undefined);
          }
        }
      }
    };
    await Promise.all(sessions.map(worker));
    if (sampler !== undefined) clearInterval(sampler);

    // Quiescence: every worker's turns are done; the logs are compared with the store's.
    let events = 0;
    let lostEvents = 0;
    let duplicatedEvents = 0;
    let mismatchedEvents = 0;
    let turns = 0;
    const stuckTurns: string[] = [];
    const badDones: string[] = [];
    const leftOpen: string[] = [];
    for (const { client, sessionId, stream } of streams) {
      const snapshot = await client.call('getSession', { params: { id: sessionId } });
      await stream
        .waitFor((frame) => Number(frame.id) === snapshot.lastSeq, 'the last stored event', 0, 10_000)
        .catch(() => undefined);
      await stream.stop();
      const replay: SseFrame[] = [];
      const controller = new AbortController();
      try {
        for await (const frame of client.stream('sessionEvents', {
          params: { id: sessionId },
          lastEventId: 0,
          signal: controller.signal,
        })) {
          if (frame.event === 'heartbeat') continue;
          replay.push(frame);
          if (Number(frame.id) >= snapshot.lastSeq) break;
        }
      } finally {
        controller.abort();
      }
      events += replay.length;
      const live = new Map<string, SseFrame[]>();
      for (const frame of stream.frames) live.set(String(frame.id), [...(live.get(String(frame.id)) ?? []), frame]);
      for (const frame of replay) {
        const copies = live.get(String(frame.id)) ?? [];
        if (copies.length === 0) lostEvents += 1;
        if (copies.length > 1) duplicatedEvents += copies.length - 1;
        if (copies[0] !== undefined && JSON.stringify(copies[0]) !== JSON.stringify(frame)) mismatchedEvents += 1;
      }
      // Every turn the log names has exactly one done, and nothing of its own after it (its background work may).
      const turnIds = new Set(
        replay.map((frame) => dataOf<{ turnId?: string }>(frame).turnId).filter((id) => id !== undefined),
      );
      turns += turnIds.size;
      for (const turnId of turnIds) {
        const ofTurn = replay.filter((frame) => dataOf<{ turnId?: string }>(frame).turnId === turnId);
        const dones = ofTurn.filter((frame) => frame.event === 'done').length;
        if (dones === 0) stuckTurns.push(`${sessionId}/${turnId}`);
        const doneIndex = ofTurn.findIndex((frame) => frame.event === 'done');
        const after = ofTurn
          .slice(doneIndex + 1)
          .filter((frame) => ['done', 'result', 'turn_canceled'].includes(frame.event));
        if (dones > 1 || after.length > 0) badDones.push(`${sessionId}/${turnId}: ${dones} dones`);
      }
      if (snapshot.openTurn !== null) leftOpen.push(`${sessionId}: turn ${snapshot.openTurn.id} open`);
      if (snapshot.queuedPrompts.length > 0) leftOpen.push(`${sessionId}: ${snapshot.queuedPrompts.length} queued`);
      const pending = await client.call('listSessionInteractions', {
        params: { id: sessionId },
        query: { status: 'pending' },
      });
      if (pending.interactions.length > 0) leftOpen.push(`${sessionId}: ${pending.interactions.length} pending`);
    }
    streams.length = 0;
    for (const host of [real, driver]) {
      const code = await host?.stop('SIGTERM');
      if (code !== 0) errors.push(`a host exited with ${code}`);
    }
    real = undefined;
    driver = undefined;
    await assertNoProcessesLeft(mark, 20_000).catch((error: unknown) => errors.push(String(error)));
    return {
      seed: options.seed,
      durationMs: Date.now() - started,
      actions,
      outcomes,
      events,
      lostEvents,
      duplicatedEvents,
      mismatchedEvents,
      stuckTurns,
      badDones,
      turns,
      leftOpen,
      errors,
    };
  } finally {
    for (const { stream } of streams) await stream.stop();
    await real?.stop('SIGKILL');
    await driver?.stop('SIGKILL');
    killMarkedProcesses(mark);
    await mock.close();
    await home.cleanup();
    await rm(root, { recursive: true, force: true });
  }
}

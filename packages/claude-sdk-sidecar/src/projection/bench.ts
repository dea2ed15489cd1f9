import { type EmitEvent, encodeEvent } from '@outrigger/protocol';
import { loadSdkFixture, type SdkFixtureEntry } from './fixtures/sdkFixtures.ts';
import { createStreamProjector } from './streamProjector.ts';

export interface ProjectionBenchmarkResult {
  /** Protocol events projected and encoded. */
  events: number;
  seconds: number;
  eventsPerSecond: number;
  /** 99th percentile of one SDK message's projection, including encoding its events. */
  p99Micros: number;
}

/**
 * Pushes the captured SDK message mix (streamed text with thinking, text + tool, a TodoWrite turn
 * with its hook, a TaskCreate/TaskUpdate turn) through a fresh projector per iteration into an
 * encode-to-NDJSON-string sink. No assertions: `npm run bench` reports the figures.
 */
export function projectionBenchmark(iterations: number): ProjectionBenchmarkResult {
  const mix: SdkFixtureEntry[] = [
    ...loadSdkFixture('streamed-text'),
    ...loadSdkFixture('text-and-tool'),
    ...loadSdkFixture('todowrite'),
    ...loadSdkFixture('taskcreate-update'),
  ];
  let events = 0;
  let bytes = 0;
  const sink: EmitEvent = (type, payload) => {
    bytes += encodeEvent(type, payload).length + 1;
    events++;
  };
  const durations = new Float64Array(iterations * mix.length);
  let sample = 0;
  const started = process.hrtime.bigint();
  for (let iteration = 0; iteration < iterations; iteration++) {
    const projector = createStreamProjector({ emit: sink });
    for (const entry of mix) {
      const before = process.hrtime.bigint();
      if ('message' in entry) projector.project(entry.message, 'bench-turn');
      else projector.postToolUse(entry.input, entry.toolUseId, 'bench-turn');
      durations[sample++] = Number(process.hrtime.bigint() - before) / 1000;
    }
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (bytes === 0) throw new Error('the projection benchmark produced no output');
  durations.sort();
  return {
    events,
    seconds,
    eventsPerSecond: events / seconds,
    p99Micros: durations[Math.min(durations.length - 1, Math.floor(durations.length * 0.99))] ?? 0,
  };
}

/* The internals `npm run bench` drives directly, beyond the public entry: the projector micro-benchmark, the captured SDK turns it replays, and the prompt queue a raw `query()` loop needs. */
export { type ProjectionBenchmarkResult, projectionBenchmark } from './projection/bench.ts';
export { loadSdkFixture, type SdkFixtureEntry, type SdkFixtureName } from './projection/fixtures/sdkFixtures.ts';
export { PromptQueue } from './runtime/promptQueue.ts';

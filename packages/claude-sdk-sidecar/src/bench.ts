/*
 * The internals `npm run bench` drives directly, beyond the public entry: the projector micro-benchmark, the
 * captured SDK turns it replays, the prompt queue a raw `query()` loop needs, and the runtime's own builders
 * of a Query's options and child env, so the raw loop "with the same options" asks Claude Code for exactly
 * what the sidecar asks for.
 */
export { resolveClaudeExecutable } from './config/executablePath.ts';
export { buildQueryEnv } from './config/settingsEnv.ts';
export { resolveStartOptions } from './config/startOptions.ts';
export { type ProjectionBenchmarkResult, projectionBenchmark } from './projection/bench.ts';
export { loadSdkFixture, type SdkFixtureEntry, type SdkFixtureName } from './projection/fixtures/sdkFixtures.ts';
export { generationHooks, generationQueryOptions } from './runtime/generationQueryOptions.ts';
export { LiveSessionSettings } from './runtime/liveSessionSettings.ts';
export { PromptQueue } from './runtime/promptQueue.ts';

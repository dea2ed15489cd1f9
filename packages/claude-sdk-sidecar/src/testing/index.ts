export { FakeClaudeQuery, fakeQueryFactory } from './fakeClaudeQuery.ts';
export * from './sdkMessageBuilders.ts';
export { type SpawnedSidecar, type SpawnSidecarOptions, spawnSidecar, type WaitOptions } from './spawnSidecar.ts';

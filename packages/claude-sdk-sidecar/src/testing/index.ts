export { TEST_DRIVER_ENV } from '../testDriver/testDriverSession.ts';
export { CANARY_MARKER, canaries, canariesIn } from './canaries.ts';
export { ensureSidecarBuilt } from './ensureSidecarBuilt.ts';
export { FakeClaudeQuery, fakeQueryFactory } from './fakeClaudeQuery.ts';
export {
  descendants,
  isAlive,
  pollUntil,
  processesMatching,
  processGroupMembers,
  youngestChild,
} from './processTree.ts';
export * from './sdkMessageBuilders.ts';
export { type SpawnedSidecar, spawnSidecar } from './spawnSidecar.ts';
export { testDriverEnv } from './testDriverEnv.ts';
export { type WaitOptions, waitForMatch } from './waitForMatch.ts';

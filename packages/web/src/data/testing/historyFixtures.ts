import type { HistoryList, HistoryProject, HistorySession } from '@outrigger/host-api';
import { T0 } from './fixtures.ts';

/** Builders of history contract objects for tests: each fills every field and takes overrides. */

export function historySession(overrides: Partial<HistorySession> & { claudeSessionId: string }): HistorySession {
  return {
    cwd: '/work/project',
    title: 'Add a flag',
    firstPrompt: 'Add a flag',
    gitBranch: 'main',
    createdAt: T0,
    lastActivityAt: T0,
    messageCount: 4,
    bytes: 2048,
    recentlyActive: false,
    cwdExists: true,
    outriggerSessionId: null,
    ...overrides,
  };
}

export function historyList(projects: HistoryProject[], overrides: Partial<HistoryList> = {}): HistoryList {
  return {
    configDir: '/home/me/.claude',
    projects,
    total: projects.reduce((sum, project) => sum + project.sessions.length, 0),
    hiddenOutsideRoots: 0,
    indexState: 'ready',
    revision: 1,
    ...overrides,
  };
}

/** A UUID for test session `n`. */
export function claudeId(n: number): string {
  return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

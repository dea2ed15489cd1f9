import { readFileSync } from 'node:fs';
import { killSurvivors, markedProcesses as processesMarked } from '../../src/sidecar/processMarks.ts';

/**
 * Every child the host starts inherits this variable (the harness puts it in the sidecar's environment
 * and the serve child's), so the processes a test left behind can be found even after they were
 * re-parented: by their environment, not their parent (the host's own reaping works the same way,
 * `src/sidecar/processMarks.ts`).
 */
export const TEST_MARK_VARIABLE = 'OUTRIGGER_TEST_MARK';

/** Pids of live processes (zombies excluded) whose environment carries `OUTRIGGER_TEST_MARK=<mark>`. */
export function markedProcesses(mark: string): number[] {
  return processesMarked(TEST_MARK_VARIABLE, mark).map((found) => found.pid);
}

/** The command line of `pid`, its arguments joined by spaces; '' once the process is gone. */
function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** Marked processes whose command line contains `needle` (or matches it). */
export function markedProcessesRunning(mark: string, needle: string | RegExp): number[] {
  return markedProcesses(mark).filter((pid) => {
    const command = commandLineOf(pid);
    return typeof needle === 'string' ? command.includes(needle) : needle.test(command);
  });
}

/** Waits until no marked process is left; fails naming the survivors (with their command lines). */
export async function assertNoProcessesLeft(mark: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let left = markedProcesses(mark);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    left = markedProcesses(mark);
  }
  if (left.length === 0) return;
  const described = left.map((pid) => `${pid}: ${commandLineOf(pid).slice(0, 200)}`);
  throw new Error(`processes left behind:\n${described.join('\n')}`);
}

/** Kills what a failed test left (SIGKILL, by pid and start time), so one failure does not leak into the next test. */
export function killMarkedProcesses(mark: string): void {
  killSurvivors(processesMarked(TEST_MARK_VARIABLE, mark));
}

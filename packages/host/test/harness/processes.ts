import { readdirSync, readFileSync } from 'node:fs';

/**
 * Every child the host starts inherits this variable (the harness puts it in the sidecar's environment
 * and the serve child's), so the processes a test left behind can be found even after they were
 * re-parented: by their environment, not their parent.
 */
export const TEST_MARK_VARIABLE = 'OUTRIGGER_TEST_MARK';

/** Pids of live processes (zombies excluded) whose environment carries `OUTRIGGER_TEST_MARK=<mark>`. */
export function markedProcesses(mark: string): number[] {
  const needle = `${TEST_MARK_VARIABLE}=${mark}\0`;
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      if (`${readFileSync(`/proc/${entry}/environ`, 'latin1')}\0`.includes(needle)) pids.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
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
  const described = left.map((pid) => {
    try {
      return `${pid}: ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').slice(0, 200)}`;
    } catch {
      return String(pid);
    }
  });
  throw new Error(`processes left behind:\n${described.join('\n')}`);
}

/** Kills what a failed test left (by pid, SIGKILL), so one failure does not leak into the next test. */
export function killMarkedProcesses(mark: string): void {
  for (const pid of markedProcesses(mark)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

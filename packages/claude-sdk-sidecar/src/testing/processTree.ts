import { readdirSync, readFileSync } from 'node:fs';

/** Linux process facts read from /proc, for asserting which processes a cancel left behind. */

interface ProcessInfo {
  readonly pid: number;
  readonly parentPid: number;
  readonly groupId: number;
  /** Clock ticks since boot; orders siblings by age. */
  readonly startTime: number;
  readonly commandLine: string;
}

function readProcess(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may contain spaces and parentheses; the fields after its closing ')' are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const state = fields[0];
    if (state === 'Z' || state === 'X') return undefined;
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    return {
      pid,
      parentPid: Number(fields[1]),
      groupId: Number(fields[2]),
      startTime: Number(fields[19]),
      commandLine,
    };
  } catch {
    return undefined;
  }
}

function allProcesses(): ProcessInfo[] {
  const processes: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProcess(Number(entry));
    if (info) processes.push(info);
  }
  return processes;
}

/** Live (non-zombie) processes whose command line contains `needle`. */
export function processesMatching(needle: string): number[] {
  return allProcesses()
    .filter((info) => info.commandLine.includes(needle))
    .map((info) => info.pid);
}

/** Waits until some live process has `needle` in its command line; resolves with those processes. */
export function waitForProcesses(needle: string, description: string, timeoutMs: number): Promise<number[]> {
  return pollUntil(
    () => {
      const pids = processesMatching(needle);
      return pids.length > 0 ? pids : undefined;
    },
    description,
    timeoutMs,
  );
}

/** Waits until none of `pids` is alive any more; `description` names them in the timeout failure. */
export async function waitUntilGone(pids: readonly number[], description: string, timeoutMs: number): Promise<void> {
  await pollUntil(() => (pids.some(isAlive) ? undefined : true), description, timeoutMs);
}

/** Live (non-zombie) processes of the process group `groupId`. */
export function processGroupMembers(groupId: number): number[] {
  return allProcesses()
    .filter((info) => info.groupId === groupId)
    .map((info) => info.pid);
}

/** The youngest live child of `parentPid` whose command line contains `needle`. */
export function youngestChild(parentPid: number, needle: string): number | undefined {
  const children = allProcesses()
    .filter((info) => info.parentPid === parentPid && info.commandLine.includes(needle))
    .sort((left, right) => right.startTime - left.startTime);
  return children[0]?.pid;
}

/** Every live process below `root` (children, their children, …). */
export function descendants(root: number): number[] {
  const processes = allProcesses();
  const found: number[] = [];
  const walk = (parent: number): void => {
    for (const child of processes) {
      if (child.parentPid !== parent) continue;
      found.push(child.pid);
      walk(child.pid);
    }
  };
  walk(root);
  return found;
}

export function isAlive(pid: number): boolean {
  return readProcess(pid) !== undefined;
}

/** Polls `check` every 50 ms until it returns a value other than undefined; fails with `description` after `timeoutMs`. */
export async function pollUntil<T>(
  check: () => T | undefined | Promise<T | undefined>,
  description: string,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    // Awaited: an async check returning its promise must not count as found.
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs}ms waiting until ${description}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

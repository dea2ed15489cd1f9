import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Claude Code runs a tool's shell in a process group of its own, so a tool it did not get to kill (a cancel
 * that closed Claude Code while the tool ran) outlives it, out of reach of the sidecar's group. Everything the
 * sidecar starts inherits its environment, so the host marks it there: the sidecar's own mark in its env, a
 * session's mark in the env of that session's Claude Code (`start.env`). Linux only (`/proc`); elsewhere
 * nothing is found.
 */
export const SIDECAR_MARK_VARIABLE = 'OUTRIGGER_SIDECAR_MARK';
export const SESSION_MARK_VARIABLE = 'OUTRIGGER_SESSION_MARK';
/** The same for every run of a host on one database: what a killed run left is found by the next. */
export const HOST_MARK_VARIABLE = 'OUTRIGGER_HOST_MARK';

/** The host mark of a database (one host runs on a database at a time). */
export function hostMarkFor(databasePath: string): string {
  return createHash('sha256').update(databasePath).digest('hex').slice(0, 24);
}

/**
 * What a previous run of this host left (it was killed: its sidecar ends by itself once its stdin closes,
 * the tools Claude Code ran in groups of their own do not): given `graceMs` to end on its own, then killed.
 * Returns how many had to be killed.
 */
export async function reapPreviousRun(hostMark: string, graceMs = 3_000): Promise<number> {
  const deadline = Date.now() + graceMs;
  let left = markedProcesses(HOST_MARK_VARIABLE, hostMark);
  while (left.length > 0 && Date.now() < deadline) {
    await delay(100);
    left = markedProcesses(HOST_MARK_VARIABLE, hostMark);
  }
  return killSurvivors(left);
}

/** A process as of one moment: its pid and start time (a later process reusing the pid has another). */
export interface MarkedProcess {
  readonly pid: number;
  readonly startTime: string;
}

const procAvailable = existsSync('/proc/self/environ');

/** Live processes (zombies excluded, this process excluded) whose environment has `variable=value`. */
export function markedProcesses(variable: string, value: string): MarkedProcess[] {
  if (!procAvailable) return [];
  const needle = `\0${variable}=${value}\0`;
  const found: MarkedProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const startTime = liveStartTime(Number(entry));
    if (startTime === undefined) continue;
    try {
      if (`\0${readFileSync(`/proc/${entry}/environ`, 'latin1')}`.includes(needle)) {
        found.push({ pid: Number(entry), startTime });
      }
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** Those of `processes` that still run (same pid and start time). */
export function survivors(processes: readonly MarkedProcess[]): MarkedProcess[] {
  return processes.filter(({ pid, startTime }) => liveStartTime(pid) === startTime);
}

/** SIGKILLs those of `processes` that still run (same pid and start time); returns how many. */
export function killSurvivors(processes: readonly MarkedProcess[]): number {
  let killed = 0;
  for (const { pid, startTime } of processes) {
    if (liveStartTime(pid) !== startTime) continue;
    try {
      process.kill(pid, 'SIGKILL');
      killed += 1;
    } catch {
      // it ended meanwhile
    }
  }
  return killed;
}

function liveStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] === 'Z' || fields[0] === 'X') return undefined;
    return fields[19];
  } catch {
    return undefined;
  }
}

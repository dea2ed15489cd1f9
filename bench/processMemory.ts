import { readFile } from 'node:fs/promises';

/** VmRSS of one process, in kilobytes, as the kernel reports it. */
export async function residentKilobytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (!match?.[1]) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(match[1]);
}

/** The direct children of a process (those its main thread started, which is where Node spawns). */
export async function childPids(pid: number): Promise<number[]> {
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8');
  return children.split(/\s+/).filter(Boolean).map(Number);
}

export function megabytes(kilobytes: number): number {
  return kilobytes / 1024;
}

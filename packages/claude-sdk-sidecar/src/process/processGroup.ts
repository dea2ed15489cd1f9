/**
 * Sends `signal` to every process in the group `groupId` (a detached child's pid). Returns false when the
 * group has no process left.
 */
export function signalProcessGroup(groupId: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-groupId, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

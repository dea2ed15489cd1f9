/** A merge that was not attempted, and why (the base branch is gone, its work tree has edits in the way, …). */
export class WorktreeMergeRefused extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'WorktreeMergeRefused';
  }
}

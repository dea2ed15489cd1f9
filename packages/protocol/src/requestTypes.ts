export const requestTypes = [
  'start',
  'exec',
  'guide',
  'cancel',
  'stop_task',
  'submit_interactive',
  'interactive_disposition',
  'apply_settings',
  'inspect_fork_checkpoints',
  'recover_turn_binding',
  'fork_session',
  'close',
] as const;

export type RequestType = (typeof requestTypes)[number];

/** Stateless reads need no `start` and no runtime; everything else except `start` needs one. */
export const statelessRequestTypes = [
  'inspect_fork_checkpoints',
  'recover_turn_binding',
  'fork_session',
] as const satisfies readonly RequestType[];

const requestTypeSet: ReadonlySet<string> = new Set(requestTypes);

export function isRequestType(value: unknown): value is RequestType {
  return typeof value === 'string' && requestTypeSet.has(value);
}

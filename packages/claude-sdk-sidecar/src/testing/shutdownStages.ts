/**
 * Reference §3.4: the diagnostic stages, in order, of a Query shutdown whose child acknowledged the
 * interrupt, and of the cancel around it. Written out from the reference rather than taken from the
 * production code, so the tests hold that code to the reference.
 */
export const SHUTDOWN_STAGES_AFTER_INTERRUPT_ACK: readonly string[] = [
  'shutdown_started',
  'interrupt_started',
  'interrupt_succeeded',
  'query_close_started',
  'query_close_succeeded',
  'consumption_wait_started',
  'consumption_settled',
  'shutdown_succeeded',
];

export const CANCEL_STAGES_AFTER_INTERRUPT_ACK: readonly string[] = [
  'cancel_received',
  ...SHUTDOWN_STAGES_AFTER_INTERRUPT_ACK,
  'cancel_succeeded',
];

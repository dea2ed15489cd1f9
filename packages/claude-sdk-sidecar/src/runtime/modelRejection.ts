/**
 * Claude Code refused a model (`setModel` answers "Model 'gpt-4o' not found" after asking the API). The
 * `error` response carries `stage: "model"`, so a host can say so at the field the model was chosen in.
 */
export class ModelRejectedError extends Error {
  readonly stage = 'model';
  readonly deliveryDisposition = 'not_started';

  constructor(model: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`Claude Code rejected the model "${model}": ${reason}`, { cause });
    this.name = 'ModelRejectedError';
  }
}

import type { ModelInfo } from '@anthropic-ai/claude-agent-sdk';

export const DEFAULT_MODEL = 'default';

export interface ModelOption {
  value: string;
  name: string;
  description?: string;
}

export interface ModelConfigOption {
  id: 'model';
  name: 'Model';
  description: 'AI model to use';
  category: 'model';
  type: 'select';
  currentValue: string;
  effectiveValue?: string;
  options: ModelOption[];
}

/** The models Claude Code offers, as reported by the Query's initialization. */
export class ModelCatalogue {
  #options: ModelOption[] = [];

  get known(): boolean {
    return this.#options.length > 0;
  }

  replace(models: readonly ModelInfo[] | undefined): void {
    this.#options = (models ?? []).map((model) => ({
      value: model.value,
      name: model.displayName || model.value,
      ...(model.description ? { description: model.description } : {}),
    }));
  }

  /**
   * Whether the model is one Claude Code offers of its own (by value or name, as `resolve` matches). The model a
   * Query was created with is listed too, named by its value ("Custom model"), even one the API does not have.
   */
  offers(requested: string): boolean {
    const lower = requested.toLowerCase();
    return this.#options.some(
      (option) =>
        option.name !== option.value && (option.value.toLowerCase() === lower || option.name.toLowerCase() === lower),
    );
  }

  /** The catalogue value for a requested model: exact value first, then case-insensitive value or name. */
  resolve(requested: string): string {
    if (requested === '' || requested === DEFAULT_MODEL) return DEFAULT_MODEL;
    if (this.#options.some((option) => option.value === requested)) return requested;
    const lower = requested.toLowerCase();
    const match = this.#options.find(
      (option) => option.value.toLowerCase() === lower || option.name.toLowerCase() === lower,
    );
    return match?.value ?? requested;
  }

  configOptions(currentValue: string, effectiveValue: string | undefined): ModelConfigOption[] | undefined {
    if (!this.known) return undefined;
    return [
      {
        id: 'model',
        name: 'Model',
        description: 'AI model to use',
        category: 'model',
        type: 'select',
        currentValue,
        ...(effectiveValue ? { effectiveValue } : {}),
        options: this.#options,
      },
    ];
  }
}

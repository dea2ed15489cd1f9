import type { ModelInfo, PermissionMode } from '@anthropic-ai/claude-agent-sdk';
import type { ApplySettingsPayload } from '@outrigger/protocol';
import { mapPermissionMode } from '../config/permissionMode.ts';
import type { ResolvedStartOptions } from '../config/startOptions.ts';
import type { ClaudeQuery } from './claudeQuery.ts';
import { DEFAULT_MODEL, ModelCatalogue, type ModelConfigOption } from './modelCatalogue.ts';
import { ModelRejectedError } from './modelRejection.ts';

/** What a new Query is created with, from the settings as they are now. */
export interface CreateTimeSettings {
  permissionMode: PermissionMode;
  /** Absent for the default model: Claude Code picks it. */
  model?: string;
  /** Flag settings applied since start, on top of the start options' own `settings`. */
  flagSettings: Record<string, unknown>;
}

/**
 * The session's model, permission mode and flag settings: what `apply_settings` changes, how each change
 * reaches the live Query (`setPermissionMode`, `setModel`, `applyFlagSettings`), what the next Query is
 * created with, and how the selection is reported (`model`, `configOptions`).
 */
export class LiveSessionSettings {
  readonly #catalogue = new ModelCatalogue();
  #start: ResolvedStartOptions | undefined;
  #permissionMode: PermissionMode = 'default';
  #selectedModel: string;
  #effectiveModel: string | undefined;
  #flagSettings: Record<string, unknown> = {};

  constructor(requestedModel: string | undefined) {
    this.#selectedModel = requestedModel || DEFAULT_MODEL;
  }

  get permissionMode(): PermissionMode {
    return this.#permissionMode;
  }

  get canBypassPermissions(): boolean {
    return this.#start?.canBypassPermissions ?? false;
  }

  /** The start options resolved at `start`: the first Query's permission mode and the bypass gate. */
  started(startOptions: ResolvedStartOptions): void {
    this.#start = startOptions;
    this.#permissionMode = startOptions.permissionMode;
  }

  /**
   * A start's model that Claude Code does not offer of its own (a full model id, or a typo such as `gpt-4o`,
   * which its list then names as a "Custom model") is checked by Claude Code itself (`setModel` asks the API), so a model it cannot run fails the start, not the first turn.
   */
  async verifyStartModel(query: ClaudeQuery): Promise<void> {
    const model = this.#selectedModel;
    if (model === DEFAULT_MODEL || !this.#catalogue.known || this.#catalogue.offers(model) || !query.setModel) return;
    try {
      // The Query was created with this model, and Claude Code checks only a change: away and back again.
      await query.setModel(undefined);
      await query.setModel(model);
    } catch (error) {
      throw new ModelRejectedError(model, error);
    }
  }

  /** The models Claude Code offers, from the first Query's initialization. */
  replaceCatalogue(models: readonly ModelInfo[] | undefined): void {
    this.#catalogue.replace(models);
  }

  /** The model Claude Code reports it runs (`system/init`); true when that changed what is reported. */
  observeEffectiveModel(model: string): boolean {
    if (model === this.#effectiveModel) return false;
    this.#effectiveModel = model;
    return true;
  }

  createTime(): CreateTimeSettings {
    return {
      permissionMode: this.#permissionMode,
      ...(this.#selectedModel === DEFAULT_MODEL ? {} : { model: this.#selectedModel }),
      flagSettings: this.#flagSettings,
    };
  }

  /**
   * Applies the payload to the live Query, if any, and keeps it for the next Query. Flag settings the live
   * Query cannot take (no `applyFlagSettings`, or it rejects them) call `onNeedsNewQuery`, so the next
   * Query gets them at creation; a rejection is still thrown.
   */
  async apply(
    payload: ApplySettingsPayload,
    query: ClaudeQuery | undefined,
    onNeedsNewQuery: () => void,
  ): Promise<void> {
    if (payload.permissionMode !== undefined && payload.permissionMode !== '') {
      this.#permissionMode = mapPermissionMode(payload.permissionMode, this.canBypassPermissions);
      await query?.setPermissionMode?.(this.#permissionMode);
    } else if (payload.planMode !== undefined) {
      this.#permissionMode = payload.planMode ? 'plan' : (this.#start?.basePermissionMode ?? 'default');
      await query?.setPermissionMode?.(this.#permissionMode);
    }
    if (payload.model !== undefined && payload.model !== '') {
      const selected = this.#catalogue.resolve(payload.model);
      // Claude Code checks the model before taking it; a refused one leaves the selection as it was.
      try {
        await query?.setModel?.(selected === DEFAULT_MODEL ? undefined : selected);
      } catch (error) {
        throw new ModelRejectedError(payload.model, error);
      }
      this.#selectedModel = selected;
      this.#effectiveModel = undefined;
    }
    const flags: Record<string, unknown> = {};
    if (payload.effort !== undefined && payload.effort !== '') flags.effortLevel = payload.effort;
    if (payload.speed !== undefined) flags.fastMode = payload.speed === 'fast';
    if (Object.keys(flags).length === 0) return;
    this.#flagSettings = { ...this.#flagSettings, ...flags };
    if (!query) return;
    if (!query.applyFlagSettings) {
      onNeedsNewQuery();
      return;
    }
    try {
      await query.applyFlagSettings(flags);
    } catch (error) {
      onNeedsNewQuery();
      throw error;
    }
  }

  /**
   * The `model` and `configOptions` fields of a session snapshot: the user's selection (`default` when none
   * was made) in `model` and `currentValue`; the model Claude Code reports it runs only in `effectiveValue`.
   */
  reported(): { model: string; configOptions?: ModelConfigOption[] } {
    const configOptions = this.#catalogue.configOptions(this.#selectedModel, this.#effectiveModel);
    return { model: this.#selectedModel, ...(configOptions ? { configOptions } : {}) };
  }
}

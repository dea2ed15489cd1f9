import type { SessionConfigOption, SessionConfigSelectOption, SessionModeState } from '@agentclientprotocol/sdk';
import {
  type EffortLevel,
  effortLevels,
  modelOptionOf,
  type PatchSettingsBody,
  type PermissionMode,
  patchSettingsBodySchema,
  permissionModes,
  type SessionDetail,
  type SessionSettings,
} from '@outrigger/host-api';

/*
 * A session's settings as ACP's modes and config options, and back: what `session/set_mode` and
 * `session/set_config_option` ask for, as the host's `PATCH /api/sessions/:id/settings` body.
 */

/** A choice Claude Code reported (a session's model option, or `GET /api/models`'s catalogue). */
export type HostConfigOption = SessionDetail['configOptions'][number];
export type HostConfigValue = HostConfigOption['options'][number];

/** The config option ids this agent offers. */
export const configIds = { mode: 'mode', model: 'model', effort: 'effort' } as const;

/** Each mode in a word and a sentence, as Claude Code's own mode picker (and the web UI) say them. */
const modeInfo: Readonly<Record<PermissionMode, { name: string; description: string }>> = {
  default: { name: 'Ask first', description: 'Claude asks before it edits a file or runs a command.' },
  acceptEdits: {
    name: 'Accept edits',
    description: 'File edits in the working directory go ahead without asking; commands still ask.',
  },
  plan: { name: 'Plan mode', description: 'Claude reads and proposes a plan; nothing changes until you approve it.' },
  auto: { name: 'Auto', description: 'Claude Code’s safety check approves routine actions and asks about risky ones.' },
  bypassPermissions: {
    name: 'Bypass permissions',
    description: 'Nothing asks: every tool runs. Only for a sandbox you trust.',
  },
};

const effortNames: Readonly<Record<EffortLevel, string>> = {
  low: 'Low',
  medium: 'Medium',
  high: 'High',
  xhigh: 'Extra high',
  max: 'Max',
};

/** Claude Code's own effort, which the host stores as `effort: null`. */
const defaultEffort = 'default';

/**
 * The one mode a session is in. Plan mode is a permission mode: `planMode` (an older switch of the same thing)
 * and `permissionMode: "plan"` both read as plan (as the web UI reads them).
 */
export function modeOf(settings: Pick<SessionSettings, 'permissionMode' | 'planMode'>): PermissionMode {
  return settings.planMode ? 'plan' : settings.permissionMode;
}

/** ACP's modes: the host's permission modes, the session's current one. */
export function modeStateOf(settings: Pick<SessionSettings, 'permissionMode' | 'planMode'>): SessionModeState {
  return {
    currentModeId: modeOf(settings),
    availableModes: permissionModes.map((mode) => ({ id: mode, ...modeInfo[mode] })),
  };
}

/**
 * The session's config options: the mode (ACP says a client that reads config options SHOULD ignore `modes`,
 * so the mode is here too), the model, the effort. `configOptions` are the session's (its detail, or the
 * latest `settings` event that carried them); `models` the host's catalogue (`GET /api/models`), used while
 * the session has not reported its own list yet.
 */
export function configOptionsOf(
  settings: SessionSettings,
  configOptions: readonly HostConfigOption[],
  models: readonly HostConfigValue[] = [],
): SessionConfigOption[] {
  return [
    {
      id: configIds.mode,
      name: 'Mode',
      description: 'How Claude asks before it acts',
      category: 'mode',
      type: 'select',
      currentValue: modeOf(settings),
      options: permissionModes.map((mode) => ({ value: mode, ...modeInfo[mode] })),
    },
    modelOptionFrom(settings, configOptions, models),
    {
      id: configIds.effort,
      name: 'Effort',
      description: 'How hard Claude thinks',
      category: 'thought_level',
      type: 'select',
      currentValue: settings.effort ?? defaultEffort,
      options: [
        // The host cannot go back to Claude Code's default effort (its PATCH takes a level only), so "Default"
        // is offered only while it is what the session has.
        ...(settings.effort === null
          ? [{ value: defaultEffort, name: 'Default', description: 'Claude Code’s default effort for the model' }]
          : []),
        ...effortLevels.map((level) => ({ value: level, name: effortNames[level] })),
      ],
    },
  ];
}

function modelOptionFrom(
  settings: SessionSettings,
  configOptions: readonly HostConfigOption[],
  models: readonly HostConfigValue[],
): SessionConfigOption {
  const reported = modelOptionOf(configOptions);
  const choices = (reported?.options ?? []).length > 0 ? reported!.options : models;
  const options: SessionConfigSelectOption[] = choices.map((choice) => selectOption(choice));
  // The current value must be one of the options: a model typed elsewhere (the browser, `--model`) is added.
  if (!options.some((option) => option.value === settings.model)) {
    options.unshift({ value: settings.model, name: settings.model === 'default' ? 'Default' : settings.model });
  }
  return {
    id: configIds.model,
    name: reported?.name ?? 'Model',
    description: reported?.description ?? 'AI model to use',
    category: 'model',
    type: 'select',
    currentValue: settings.model,
    options,
  };
}

function selectOption(choice: HostConfigValue): SessionConfigSelectOption {
  return choice.description === undefined
    ? { value: choice.value, name: choice.name }
    : { value: choice.value, name: choice.name, description: choice.description };
}

/**
 * The settings body for `session/set_config_option`. `offered` (the options this editor was last given) makes
 * a model it was not offered an error here; without it any model name goes to the host, which has Claude Code
 * check it. Throws an Error that names the option and what it takes.
 */
export function settingsPatchOf(
  configId: string,
  value: string | boolean,
  offered?: readonly SessionConfigOption[],
): PatchSettingsBody {
  if (typeof value !== 'string') throw new Error(`The option "${configId}" takes a value id, not ${String(value)}`);
  switch (configId) {
    case configIds.mode:
      return modePatchOf(value);
    case configIds.model: {
      const option = offered?.find((candidate) => candidate.id === configIds.model);
      const values = option?.type === 'select' ? selectValues(option) : undefined;
      if (values !== undefined && !values.includes(value)) {
        throw new Error(`Unknown model "${value}": the session offers ${values.join(', ')}`);
      }
      return parsePatch({ model: value }, configId);
    }
    case configIds.effort: {
      if (value === defaultEffort) {
        throw new Error('The host cannot return to Claude Code’s default effort; choose a level');
      }
      if (!(effortLevels as readonly string[]).includes(value)) {
        throw new Error(`Unknown effort "${value}": choose one of ${effortLevels.join(', ')}`);
      }
      return parsePatch({ effort: value as EffortLevel }, configId);
    }
    default:
      throw new Error(`Unknown config option "${configId}": this agent offers ${Object.values(configIds).join(', ')}`);
  }
}

/** The settings body for `session/set_mode`: both mode fields agree, so leaving plan mode turns `planMode` off. */
export function modePatchOf(modeId: string): PatchSettingsBody {
  if (!(permissionModes as readonly string[]).includes(modeId)) {
    throw new Error(`Unknown mode "${modeId}": choose one of ${permissionModes.join(', ')}`);
  }
  const mode = modeId as PermissionMode;
  return { permissionMode: mode, planMode: mode === 'plan' };
}

function selectValues(option: Extract<SessionConfigOption, { type: 'select' }>): string[] {
  return option.options.flatMap((entry) =>
    'group' in entry ? entry.options.map((item) => item.value) : [entry.value],
  );
}

/** The host's own limits (a model name's length) decide, with the host's words. */
function parsePatch(body: PatchSettingsBody, configId: string): PatchSettingsBody {
  const parsed = patchSettingsBodySchema.safeParse(body);
  if (!parsed.success) {
    throw new Error(`Invalid value for "${configId}": ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
  }
  return parsed.data;
}

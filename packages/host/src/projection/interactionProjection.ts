import {
  type InteractionAnswer,
  type InteractionKind,
  type interactionResolutions,
  type PatchSettingsBody,
  toolDecisionOf,
} from '@outrigger/host-api';
import type { InteractionRecord, SessionRecord, TurnRecord } from '../store/records.ts';
import type { ProjectionDraft } from './projectionDraft.ts';
import { toolBlockOf } from './rows.ts';
import { recordDecision } from './toolProjection.ts';

/*
 * Interactions (*answered once*): stored when the agent asks, resolved once (answered or superseded),
 * each change on the session stream and the host stream, the decision kept on the tool call's row (so
 * that it reads the same after a reload, when only pending interactions are loaded); and the settings
 * they can change.
 */

export type SupersedeResolution = Exclude<(typeof interactionResolutions)[number], 'answered'>;

const permissionModes: ReadonlySet<string> = new Set(['default', 'acceptEdits', 'plan', 'bypassPermissions', 'auto']);

export function interactionRequested(
  d: ProjectionDraft,
  turn: TurnRecord,
  payload: {
    turnId: string;
    requestId: string;
    toolCallId: string;
    toolName: string;
    agentId?: string;
    input: Record<string, unknown>;
    options: InteractionRecord['options'];
  },
): void {
  if (d.interaction(payload.requestId) !== undefined) return;
  const kind: InteractionKind =
    payload.toolName === 'AskUserQuestion' ? 'question' : payload.toolName === 'ExitPlanMode' ? 'plan' : 'approval';
  const toolRow = d.toolRow(payload.toolCallId);
  const interaction: InteractionRecord = {
    requestId: payload.requestId,
    session_id: d.sessionId,
    turnId: turn.id,
    kind,
    toolName: payload.toolName,
    tool_use_id: payload.toolCallId,
    input: payload.input,
    options: payload.options,
    agentId: payload.agentId ?? null,
    parentToolUseId: (toolRow === undefined ? undefined : toolBlockOf(toolRow)?.parentToolUseId) ?? null,
    status: 'pending',
    answer: null,
    resolution: null,
    createdAt: d.now,
    resolvedAt: null,
  };
  d.putInteraction(interaction);
  d.emit({ type: 'permission_request', data: { session_id: d.sessionId, turnId: turn.id, interaction } });
  d.emitHost({ type: 'permission_request', data: { session_id: d.sessionId, interaction } });
  d.touch();
}

export function answerInteraction(d: ProjectionDraft, interaction: InteractionRecord, answer: InteractionAnswer): void {
  const answered: InteractionRecord = {
    ...interaction,
    status: 'answered',
    answer,
    resolution: 'answered',
    resolvedAt: d.now,
  };
  d.putInteraction(answered);
  emitResolved(d, answered);
  recordDecision(d, interaction.tool_use_id, toolDecisionOf(answered, answer, d.now));
  // ExitPlanMode: the chosen option is the permission mode the session continues in.
  if (interaction.kind === 'plan' && answer.action === 'allow' && permissionModes.has(answer.optionId)) {
    applySettings(d, {
      permissionMode: answer.optionId as SessionRecord['settings']['permissionMode'],
      planMode: false,
    });
  }
}

export function supersedeInteraction(
  d: ProjectionDraft,
  interaction: InteractionRecord,
  resolution: SupersedeResolution,
): void {
  const superseded: InteractionRecord = { ...interaction, status: 'superseded', resolution, resolvedAt: d.now };
  d.putInteraction(superseded);
  emitResolved(d, superseded);
  recordDecision(d, interaction.tool_use_id, toolDecisionOf(superseded, null, d.now));
}

function emitResolved(d: ProjectionDraft, interaction: InteractionRecord): void {
  const data = {
    session_id: d.sessionId,
    turnId: interaction.turnId,
    requestId: interaction.requestId,
    status: interaction.status,
    resolution: interaction.resolution ?? 'answered',
  };
  // The host stream only drops the prompt from every tab's inbox; the answer belongs to the session's stream.
  d.emit({ type: 'permission_resolved', data: { ...data, answer: interaction.answer } });
  d.emitHost({ type: 'permission_resolved', data });
}

export function applySettings(d: ProjectionDraft, patch: PatchSettingsBody): void {
  const before = d.session.settings;
  const settings = {
    model: patch.model ?? before.model,
    permissionMode: patch.permissionMode ?? before.permissionMode,
    planMode: patch.planMode ?? before.planMode,
    effort: patch.effort ?? before.effort,
  };
  if (JSON.stringify(settings) === JSON.stringify(before)) return;
  d.patchSession({ settings }, true);
  d.emit({
    type: 'settings',
    data: { session_id: d.sessionId, settings, effectiveModel: d.session.effectiveModel },
  });
  if (settings.permissionMode !== before.permissionMode || settings.planMode !== before.planMode) {
    d.emit({
      type: 'mode_changed',
      data: { session_id: d.sessionId, permissionMode: settings.permissionMode, planMode: settings.planMode },
    });
  }
}

import { type Interaction, type MessageView, terminalTurnStatuses } from '@outrigger/host-api';
import { toolOf } from './sessionReducer.ts';
import type { SessionViewState, TurnState } from './sessionState.ts';

/** A tool call with the calls its subagent made beneath it and the prompts it raised. */
export interface ToolNode {
  row: MessageView;
  children: ToolNode[];
  interactions: Interaction[];
}

/** One row of the rendered transcript; `key` is stable across updates (the virtualizer measures by it). */
export type TimelineItem = (
  | { kind: 'user' | 'text' | 'thinking' | 'notice'; key: string; row: MessageView }
  | { kind: 'tool'; key: string; node: ToolNode }
  | { kind: 'prompt'; key: string; interaction: Interaction }
  | { kind: 'footer'; key: string; turn: TurnState }
  /** Where a continued session's Claude Code history begins (`start`, folded or open) and ends (`end`). */
  | { kind: 'earlier'; key: string; edge: 'start' | 'end'; open: boolean; rows: number }
) & {
  /** Read from a Claude Code transcript (a continued session's history): it acts on no session. */
  readOnly?: true;
};

const terminal: ReadonlySet<string> = new Set(terminalTurnStatuses);

/*
 * An item made from one object alone keeps its identity while that object does (the reducer keeps
 * every untouched row, turn and interaction): `TranscriptItem`'s memo then holds, and a delta
 * re-renders the streaming row, not every row on screen. Tool items are rebuilt each time (their
 * node gathers children and prompts, and a card also shows the tool's timeout).
 */
const rowItems = new WeakMap<MessageView, TimelineItem>();
const promptItems = new WeakMap<Interaction, TimelineItem>();
const footerItems = new WeakMap<TurnState, TimelineItem>();

function cached<K extends object>(cache: WeakMap<K, TimelineItem>, of: K, make: () => TimelineItem): TimelineItem {
  let item = cache.get(of);
  if (item === undefined) {
    item = make();
    cache.set(of, item);
  }
  return item;
}

const rowItem = (row: MessageView) => cached(rowItems, row, () => ({ kind: rowKind(row), key: row.id, row }));
const promptItem = (interaction: Interaction) =>
  cached(promptItems, interaction, () => ({ kind: 'prompt', key: `prompt:${interaction.requestId}`, interaction }));
const footerItem = (turn: TurnState) =>
  cached(footerItems, turn, () => ({ kind: 'footer', key: `footer:${turn.id}`, turn }));

/**
 * The transcript as the view lays it out: rows in order; a subagent's tool calls nested under the
 * Agent call they ran in (`parentToolUseId`); each prompt on the call that raised it (or on its own
 * where that call is not shown); a footer after the last row of every finished turn.
 */
export function timeline(state: SessionViewState): TimelineItem[] {
  const nodes = new Map<string, ToolNode>();
  for (const id of state.order) {
    const row = state.rows[id];
    const tool = toolOf(row);
    if (row !== undefined && tool !== undefined) nodes.set(tool.id, { row, children: [], interactions: [] });
  }
  const orphanPrompts: Interaction[] = [];
  for (const interaction of Object.values(state.interactions).sort((a, b) => a.createdAt - b.createdAt)) {
    const node = nodes.get(interaction.tool_use_id);
    if (node !== undefined) node.interactions.push(interaction);
    else if (interaction.status === 'pending') orphanPrompts.push(interaction);
  }

  const items: TimelineItem[] = [];
  for (const id of state.order) {
    const row = state.rows[id];
    if (row === undefined) continue;
    const tool = toolOf(row);
    if (tool !== undefined) {
      const node = nodes.get(tool.id)!;
      const parent = tool.parentToolUseId === null ? undefined : nodes.get(tool.parentToolUseId);
      if (parent !== undefined && parent !== node) parent.children.push(node);
      else items.push({ kind: 'tool', key: row.id, node });
      continue;
    }
    items.push(rowItem(row));
  }
  return withPromptsAndFooters(items, orphanPrompts, state);
}

function rowKind(row: MessageView): 'user' | 'text' | 'thinking' | 'notice' {
  if (row.role === 'user') return 'user';
  if (row.role === 'system') return 'notice';
  return row.content[0]?.type === 'thinking' ? 'thinking' : 'text';
}

function turnOf(item: TimelineItem): string | undefined {
  if (item.kind === 'tool') return item.node.row.turnId;
  if (item.kind === 'prompt') return item.interaction.turnId;
  if (item.kind === 'footer') return item.turn.id;
  if (item.kind === 'earlier') return undefined;
  return item.row.turnId;
}

function withPromptsAndFooters(
  items: TimelineItem[],
  orphanPrompts: Interaction[],
  state: SessionViewState,
): TimelineItem[] {
  const lastIndexOfTurn = new Map<string, number>();
  for (const [index, item] of items.entries()) {
    const turnId = turnOf(item);
    if (turnId !== undefined) lastIndexOfTurn.set(turnId, index);
  }
  const promptsAfter = new Map<number, Interaction[]>();
  const trailing: Interaction[] = [];
  for (const interaction of orphanPrompts) {
    const index = lastIndexOfTurn.get(interaction.turnId);
    if (index === undefined) trailing.push(interaction);
    else promptsAfter.set(index, [...(promptsAfter.get(index) ?? []), interaction]);
  }
  const out: TimelineItem[] = [];
  for (const [index, item] of items.entries()) {
    out.push(item);
    for (const interaction of promptsAfter.get(index) ?? []) out.push(promptItem(interaction));
    const turnId = turnOf(item);
    const turn = turnId === undefined ? undefined : state.turns[turnId];
    if (turn !== undefined && lastIndexOfTurn.get(turn.id) === index && terminal.has(turn.status))
      out.push(footerItem(turn));
  }
  for (const interaction of trailing) out.push(promptItem(interaction));
  return out;
}

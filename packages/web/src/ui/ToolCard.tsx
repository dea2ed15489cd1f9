import type { Interaction, ToolResultBlock } from '@outrigger/host-api';
import { lazy, Suspense, useId, useMemo, useState } from 'react';
import { diffStats, unifiedDiffOf } from '../data/fileDiff.ts';
import { formatDuration, formatElapsed } from '../data/format.ts';
import { resultOf, toolOf } from '../data/sessionReducer.ts';
import type { ToolNode } from '../data/timeline.ts';
import { toolKind, toolLabel, toolSummary } from '../data/toolSummary.ts';
import { useAction, useNow } from './hooks.ts';
import { Icon, ToolIcon } from './Icon.tsx';
import { type Answer, PromptCard, resolvedText } from './PromptCard.tsx';

const DiffView = lazy(() => import('./DiffView.tsx').then((module) => ({ default: module.DiffView })));

export interface ToolCardActions {
  answer(interaction: Interaction): Answer;
  fullResult(toolUseId: string): Promise<ToolResultBlock>;
}

/**
 * One tool call: a one-line head (icon by kind, name, what it does, live status and time) that opens
 * to the full input, the diff of a file change, the output or the error; a subagent's own calls nest
 * inside; a prompt the call raised stays open on it until answered.
 */
export function ToolCard({
  node,
  actions,
  timedOutAfter,
}: {
  node: ToolNode;
  actions: ToolCardActions;
  timedOutAfter?: (toolUseId: string) => number | undefined;
}) {
  const tool = toolOf(node.row)!;
  const result = resultOf(node.row);
  const kind = toolKind(tool);
  const pending = node.interactions.filter((interaction) => interaction.status === 'pending');
  const resolved = node.interactions.filter((interaction) => interaction.status !== 'pending');
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  const running = tool.status === 'running';
  const now = useNow(running);
  const diff = useMemo(
    () => (tool.fileChange === null ? null : diffStats(unifiedDiffOf(tool.fileChange))),
    [tool.fileChange],
  );
  const elapsed = (tool.endedAt ?? now) - tool.startedAt;
  const agent = tool.agentTask;
  const timeout = timedOutAfter?.(tool.id);
  // An error result is not always the tool failing: the person denied it, or its turn ended first
  // (the host's synthesized result). Those say so and are not shown as failures.
  const denied = resolved.some(
    (interaction) => interaction.kind === 'approval' && interaction.answer?.action === 'reject',
  );
  const cutShort = result?.resultSource === 'synthesized';
  const failed = (tool.status === 'failed' || result?.is_error === true) && !denied && !cutShort;
  const ended = denied ? 'denied' : cutShort ? 'stopped' : failed ? 'failed' : tool.status;

  const stateText = running
    ? pending.length > 0
      ? 'waiting for you'
      : `running ${formatElapsed(elapsed)}`
    : denied || cutShort || failed
      ? `${ended} · ${formatDuration(elapsed)}`
      : formatDuration(elapsed);

  return (
    <div className="tool" data-status={ended} data-asking={pending.length > 0}>
      <button
        type="button"
        className="tool-head"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={() => setOpen((value) => !value)}
      >
        <Icon name="chevron" className="chevron" />
        <ToolIcon kind={kind} />
        <span className="tool-name">{toolLabel(tool.name)}</span>
        <span className="tool-summary" title={toolSummary(tool)}>
          {toolSummary(tool)}
        </span>
        {diff !== null && (
          <span className="diff-stats small">
            <span className="add" aria-hidden="true">
              +{diff.added}
            </span>{' '}
            <span className="del" aria-hidden="true">
              −{diff.removed}
            </span>
            <span className="sr-only">
              {diff.added} lines added, {diff.removed} removed
            </span>
          </span>
        )}
        <span className={`tool-state${running ? ' running' : failed ? ' failed' : ''}`}>
          {running && pending.length === 0 && (
            <span className="status status-running">
              <span className="dot" aria-hidden="true" />
            </span>
          )}
          {stateText}
        </span>
      </button>
      {!open && running && tool.output !== null && tool.output !== '' && (
        <pre className="mono-block tool-preview">{lastLines(tool.output, 4)}</pre>
      )}
      {agent !== null && !open && (
        <div className="prompt-resolved">
          {agent.description ?? 'Subagent'} · {agent.status}
          {agent.lastToolName !== null && agent.status === 'running' ? ` · ${agent.lastToolName}` : ''}
        </div>
      )}
      {tool.background !== null && (
        <div className="prompt-resolved">
          {tool.background.status === 'running'
            ? 'Runs in the background'
            : `Ran in the background · ${tool.background.status}`}
        </div>
      )}
      {timeout !== undefined && (
        <div className="prompt-resolved" style={{ color: 'var(--red)' }}>
          Ran past the tool time-out ({timeout} s); the turn is being stopped.
        </div>
      )}
      {resolved.map((interaction) => (
        <div key={interaction.requestId} className="prompt-resolved">
          {resolvedText(interaction)}
        </div>
      ))}
      {pending.map((interaction) => (
        <div key={interaction.requestId} style={{ padding: '0 10px 10px' }}>
          <PromptCard interaction={interaction} answer={actions.answer(interaction)} fileChange={tool.fileChange} />
        </div>
      ))}
      <div className="tool-body" id={bodyId} hidden={!open}>
        {open && (
          <>
            {tool.fileChange !== null ? (
              <Suspense fallback={<div className="small muted">Loading the diff…</div>}>
                <DiffView change={tool.fileChange} />
              </Suspense>
            ) : (
              <ToolInput input={tool.input} name={tool.name} />
            )}
            {agent !== null && (
              <div className="tool-meta">
                <span className="tag">{agent.status}</span>
                {agent.description !== null && <span>{agent.description}</span>}
                {agent.summary !== null && <span>· {agent.summary}</span>}
              </div>
            )}
            {node.children.length > 0 && (
              <div className="tool-children">
                {node.children.map((child) => (
                  <ToolCard key={child.row.id} node={child} actions={actions} timedOutAfter={timedOutAfter} />
                ))}
              </div>
            )}
            {result !== undefined ? (
              <ToolResult result={result} toolUseId={tool.id} fullResult={actions.fullResult} />
            ) : (
              tool.output !== null && (
                <div>
                  <div className="tool-section-label">Output so far</div>
                  <pre className="mono-block">{tool.output}</pre>
                </div>
              )
            )}
          </>
        )}
      </div>
      {!open && node.children.length > 0 && (
        <div className="tool-body">
          <div className="tool-children">
            {node.children.map((child) => (
              <ToolCard key={child.row.id} node={child} actions={actions} timedOutAfter={timedOutAfter} />
            ))}
          </div>
        </div>
      )}
    </div>
  );
}

function ToolInput({ input, name }: { input: Record<string, unknown>; name: string }) {
  const command = name === 'Bash' && typeof input.command === 'string' ? input.command : null;
  return (
    <div>
      <div className="tool-section-label">{command === null ? 'Input' : 'Command'}</div>
      <pre className="mono-block">{command ?? JSON.stringify(input, null, 2)}</pre>
    </div>
  );
}

const collapsedLines = 12;

function ToolResult({
  result,
  toolUseId,
  fullResult,
}: {
  result: ToolResultBlock;
  toolUseId: string;
  fullResult: (toolUseId: string) => Promise<ToolResultBlock>;
}) {
  const [full, setFull] = useState<string | null>(null);
  const [showAll, setShowAll] = useState(false);
  const { busy: loading, error, run } = useAction();
  const text = full ?? result.content;
  const lines = text.split('\n');
  const long = lines.length > collapsedLines || result.truncated;
  const shown = showAll ? text : lines.slice(0, collapsedLines).join('\n');
  return (
    <div>
      <div className="tool-section-label">{result.is_error ? 'Error' : 'Result'}</div>
      <pre className={`mono-block${result.is_error ? ' error' : ''}`}>{shown === '' ? '(no output)' : shown}</pre>
      {long && !showAll && (
        <button
          type="button"
          className="btn btn-small"
          style={{ marginTop: 6 }}
          disabled={loading}
          onClick={() => {
            if (!result.truncated || full !== null) return setShowAll(true);
            run(async () => {
              setFull((await fullResult(toolUseId)).content);
              setShowAll(true);
            });
          }}
        >
          {loading ? 'Loading…' : `Show all (${result.length.toLocaleString()} characters)`}
        </button>
      )}
      {error !== null && <p className="prompt-error">{error}</p>}
    </div>
  );
}

function lastLines(text: string, count: number): string {
  return text.trimEnd().split('\n').slice(-count).join('\n');
}

import type { Interaction, ToolDecision, ToolResultBlock, ToolUseBlock } from '@outrigger/host-api';
import { lazy, Suspense, useId, useMemo, useState } from 'react';
import { diffStats, unifiedDiffOf } from '../data/fileDiff.ts';
import { formatDuration, formatElapsed } from '../data/format.ts';
import { chosenAnswers, questionsOf } from '../data/questionForm.ts';
import { resultOf, toolOf } from '../data/sessionReducer.ts';
import type { ToolNode } from '../data/timeline.ts';
import { decisionText, outcomeLabel, outcomeOf } from '../data/toolOutcome.ts';
import { toolKind, toolLabel, toolSummary } from '../data/toolSummary.ts';
import { useAction, useNow } from './hooks.ts';
import { Icon, ToolIcon } from './Icon.tsx';
import { Markdown } from './Markdown.tsx';
import { type Answer, PromptCard } from './PromptCard.tsx';

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
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  const running = tool.status === 'running';
  const now = useNow(running);
  const diff = useMemo(
    () => (tool.fileChange === null ? null : diffStats(unifiedDiffOf(tool.fileChange))),
    [tool.fileChange],
  );
  // Both ends are the host's clock (the result event carries the stored call): the same live and after a reload.
  // A heartbeat's own count wins while it runs, should this tab's clock lag the host's.
  const elapsed = running
    ? Math.max(now - tool.startedAt, (tool.elapsedSeconds ?? 0) * 1000)
    : (tool.endedAt ?? now) - tool.startedAt;
  const agent = tool.agentTask;
  const timeout = timedOutAfter?.(tool.id);
  // How it ended and what the person decided are stored with the call, never only known to a live tab.
  const decision = tool.decision ?? null;
  const outcome = outcomeOf(tool, result);
  const label = outcome === 'running' ? null : outcomeLabel(outcome, decision);
  const failed = outcome === 'failed';
  const timedOut = tool.outcome === 'timed_out';

  const stateText = running
    ? pending.length > 0
      ? 'waiting for you'
      : `running ${formatElapsed(elapsed)}`
    : label !== null
      ? `${label} · ${formatDuration(elapsed)}`
      : formatDuration(elapsed);

  return (
    <div className="tool" data-status={outcome} data-asking={pending.length > 0}>
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
        <span className={`tool-state${running ? ' running' : failed || outcome === 'timed_out' ? ' failed' : ''}`}>
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
      {(timedOut || timeout !== undefined) && (
        <div className="prompt-resolved tool-timed-out">
          {running
            ? `Ran past the tool time-out${timeout === undefined ? '' : ` (${Math.round(timeout)} s)`}; the turn is being stopped.`
            : 'Ran past the tool time-out; its turn was stopped.'}
        </div>
      )}
      {decision !== null && pending.length === 0 && (
        <div className="prompt-resolved" data-decision={decision.choice}>
          {decisionText(decision, tool.name)}
        </div>
      )}
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
            ) : tool.name === 'AskUserQuestion' ? (
              <QuestionAnswers tool={tool} decision={decision} />
            ) : tool.name === 'ExitPlanMode' && typeof tool.input.plan === 'string' ? (
              <div>
                <div className="tool-section-label">Plan</div>
                <div className="plan-body">
                  <Markdown text={tool.input.plan} streaming={false} />
                </div>
              </div>
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

/** An AskUserQuestion call opened: each question, and what was chosen for it (not the raw input). */
function QuestionAnswers({ tool, decision }: { tool: ToolUseBlock; decision: ToolDecision | null }) {
  const asked = questionsOf(tool);
  const answered = decision?.choice === 'answered' ? decision : null;
  const rows =
    answered !== null && answered.questions.length > 0
      ? answered.questions
      : asked.map((question) => ({
          question: question.question,
          header: question.header,
          // A row stored before each question kept its answers: the payload's answers, when it is one question.
          answers:
            answered !== null && asked.length === 1
              ? chosenAnswers(answered.answer?.payload ?? {})
                  .split(', ')
                  .filter((answer) => answer !== '')
              : [],
          notes: null,
        }));
  return (
    <div>
      <div className="tool-section-label">{rows.length === 1 ? 'Question' : 'Questions'}</div>
      <ul className="qa-list">
        {rows.map((row) => (
          <li key={row.question}>
            <div className="qa-question">
              {row.header !== null && <span className="tag">{row.header}</span>} {row.question}
            </div>
            <div className="qa-answer">
              {row.answers.length > 0 ? (
                <>
                  <span className="muted">Chosen: </span>
                  <strong>{row.answers.join(', ')}</strong>
                </>
              ) : (
                <span className="muted">
                  {decision === null || decision.choice === 'not_answered' ? 'Not answered' : 'No answer'}
                </span>
              )}
              {row.notes !== null && <span className="muted"> · {row.notes}</span>}
            </div>
          </li>
        ))}
      </ul>
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

import { type AnswerInteractionBody, type FileChange, HostApiError, type Interaction } from '@outrigger/host-api';
import { lazy, type ReactNode, Suspense, useEffect, useId, useRef, useState } from 'react';
import { fileChangeFromInput } from '../data/fileDiff.ts';
import { messageOf } from '../data/format.ts';
import {
  approvalAnswer,
  isAnswered,
  planAnswer,
  planOf,
  type QuestionChoice,
  questionAnswer,
  questionsOf,
} from '../data/questionForm.ts';
import { grantText } from '../data/toolOutcome.ts';
import { toolLabel } from '../data/toolSummary.ts';
import { useAction } from './hooks.ts';
import { Icon, type IconName } from './Icon.tsx';
import { Markdown } from './Markdown.tsx';

const DiffView = lazy(() => import('./DiffView.tsx').then((module) => ({ default: module.DiffView })));

export type Answer = (body: AnswerInteractionBody) => Promise<void>;

/** An interaction waiting for the person: the approval, question or plan form that answers it. */
export function PromptCard({
  interaction,
  answer,
  fileChange = null,
}: {
  interaction: Interaction;
  answer: Answer;
  /** The change an Edit/Write asks to make: shown as a diff, the raw input one click away. */
  fileChange?: FileChange | null;
}) {
  const { busy, error, run } = useAction(answerErrorText);
  const who = interaction.agentId === null ? 'Claude' : `Subagent ${interaction.agentId}`;
  const form: FormProps = { interaction, who, busy, onSubmit: (body) => run(() => answer(body)) };
  return (
    <section className="prompt" aria-label={`${who} needs you: ${toolLabel(interaction.toolName)}`}>
      {interaction.kind === 'question' ? (
        <QuestionForm {...form} />
      ) : interaction.kind === 'plan' ? (
        <PlanForm {...form} />
      ) : (
        <ApprovalForm
          {...form}
          fileChange={fileChange ?? fileChangeFromInput(interaction.toolName, interaction.input)}
        />
      )}
      {error !== null && (
        <p className="prompt-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

function answerErrorText(error: unknown): string {
  if (error instanceof HostApiError) {
    if (error.code === 'gone') return 'This request can no longer be answered: its turn ended.';
    if (error.code === 'conflict') return 'A different answer was already given (in another tab?).';
    return error.message;
  }
  if (error instanceof TypeError) return 'The host could not be reached. Your answer was not sent; try again.';
  return messageOf(error);
}

/** What every form of the card gets: the interaction, who asks, and how to answer it. */
interface FormProps {
  interaction: Interaction;
  who: string;
  busy: boolean;
  onSubmit: (body: AnswerInteractionBody) => void;
}

function PromptTitle({ icon, children }: { icon: IconName; children: ReactNode }) {
  return (
    <div className="prompt-title">
      <Icon name={icon} />
      <span>{children}</span>
    </div>
  );
}

function ApprovalForm({ interaction, who, busy, onSubmit, fileChange }: FormProps & { fileChange: FileChange | null }) {
  const [denying, setDenying] = useState(false);
  const reason = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (denying) reason.current?.focus();
  }, [denying]);
  const command = typeof interaction.input.command === 'string' ? interaction.input.command : null;
  const always = interaction.options.find((option) => option.optionId === 'allow_always');
  const grantId = useId();
  return (
    <>
      <PromptTitle icon="alert">
        {who} wants to use <strong>{toolLabel(interaction.toolName)}</strong>
      </PromptTitle>
      {fileChange !== null ? (
        <Suspense fallback={<div className="small muted">Loading the diff…</div>}>
          <DiffView change={fileChange} />
        </Suspense>
      ) : (
        <pre className="mono-block">{command ?? JSON.stringify(interaction.input, null, 2)}</pre>
      )}
      {(fileChange !== null || (command !== null && Object.keys(interaction.input).length > 1)) && (
        <details>
          <summary className="disclosure">Full input</summary>
          <pre className="mono-block">{JSON.stringify(interaction.input, null, 2)}</pre>
        </details>
      )}
      {denying ? (
        <form
          className="prompt-actions"
          onSubmit={(event) => {
            event.preventDefault();
            onSubmit(approvalAnswer('reject', reason.current?.value ?? ''));
          }}
        >
          <input
            ref={reason}
            className="input"
            style={{ flex: 1, minWidth: 180 }}
            placeholder="Why not? (optional)"
            title="Claude reads this reason"
            aria-label="Reason for denying"
            maxLength={10_000}
            onKeyDown={(event) => {
              if (event.key === 'Escape') setDenying(false);
            }}
          />
          <button type="submit" className="btn btn-danger" disabled={busy}>
            Deny
          </button>
          <button type="button" className="btn btn-ghost" onClick={() => setDenying(false)}>
            Back
          </button>
        </form>
      ) : (
        <div className="prompt-actions">
          <button
            type="button"
            className="btn btn-primary"
            disabled={busy}
            onClick={() => onSubmit(approvalAnswer('allow'))}
          >
            Allow
          </button>
          {always !== undefined && (
            <button
              type="button"
              className="btn"
              disabled={busy}
              aria-describedby={grantId}
              onClick={() => onSubmit(approvalAnswer('allow_always'))}
            >
              Allow for this session
            </button>
          )}
          <button type="button" className="btn btn-danger" disabled={busy} onClick={() => setDenying(true)}>
            Deny…
          </button>
        </div>
      )}
      {always !== undefined && !denying && (
        <p className="prompt-grant" id={grantId}>
          For this session allows {grantText(always.sessionGrant, interaction.toolName)}, without asking again.
        </p>
      )}
    </>
  );
}

function QuestionForm({ interaction, who, busy, onSubmit }: FormProps) {
  const questions = questionsOf(interaction);
  const [choices, setChoices] = useState<Record<string, QuestionChoice>>({});
  const choiceOf = (id: string): QuestionChoice => choices[id] ?? { selected: [], other: '' };
  const complete = questions.every((question) => isAnswered(choices[question.id]));
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (complete) onSubmit(questionAnswer(questions, choices));
      }}
      style={{ display: 'flex', flexDirection: 'column', gap: 8 }}
    >
      <PromptTitle icon="question">
        {who} asks {questions.length === 1 ? 'a question' : `${questions.length} questions`}
      </PromptTitle>
      {questions.map((question) => {
        const choice = choiceOf(question.id);
        const set = (next: QuestionChoice) => setChoices((all) => ({ ...all, [question.id]: next }));
        return (
          <fieldset key={question.id}>
            <legend>{question.question}</legend>
            {question.header !== null && <div className="small muted">{question.header}</div>}
            {question.options.map((option) => {
              const checked = choice.selected.includes(option.label);
              return (
                <label key={option.label} className="option">
                  <input
                    type={question.multiSelect ? 'checkbox' : 'radio'}
                    name={`q-${interaction.requestId}-${question.id}`}
                    checked={checked}
                    onChange={() =>
                      set(
                        question.multiSelect
                          ? {
                              ...choice,
                              selected: checked
                                ? choice.selected.filter((label) => label !== option.label)
                                : [...choice.selected, option.label],
                            }
                          : { selected: [option.label], other: '' },
                      )
                    }
                  />
                  <span>
                    {option.label}
                    {option.description !== null && <span className="option-desc">{option.description}</span>}
                  </span>
                </label>
              );
            })}
            <label className="option">
              <span style={{ paddingTop: 5 }}>Other…</span>
              <input
                className="input"
                style={{ flex: 1 }}
                value={choice.other}
                aria-label={`Other answer to: ${question.question}`}
                placeholder="Type your own answer"
                onChange={(event) =>
                  set({
                    selected: question.multiSelect ? choice.selected : [],
                    other: event.currentTarget.value,
                  })
                }
              />
            </label>
          </fieldset>
        );
      })}
      <div className="prompt-actions">
        <button type="submit" className="btn btn-primary" disabled={busy || !complete}>
          Send answer
        </button>
        <button
          type="button"
          className="btn btn-ghost"
          disabled={busy}
          onClick={() => onSubmit({ action: 'reject', optionId: 'reject', payload: {} })}
        >
          Skip
        </button>
      </div>
    </form>
  );
}

const planChoiceLabels: Readonly<Record<string, string>> = {
  default: 'Go ahead, ask before each tool',
  acceptEdits: 'Go ahead, accept file edits',
  auto: 'Go ahead (auto)',
  bypassPermissions: 'Go ahead, never ask',
};

function PlanForm({ interaction, who, busy, onSubmit }: FormProps) {
  const choices = interaction.options.filter(
    (option) => option.optionId !== 'plan' && !option.kind.startsWith('reject'),
  );
  const offered = choices.length > 0 ? choices.map((option) => option.optionId) : ['default', 'acceptEdits'];
  return (
    <>
      <PromptTitle icon="plan">{who} has a plan and asks to go ahead</PromptTitle>
      <div className="plan-body">
        <Markdown text={planOf(interaction)} streaming={false} />
      </div>
      <div className="prompt-actions">
        {offered.map((optionId, index) => (
          <button
            key={optionId}
            type="button"
            className={index === 0 ? 'btn btn-primary' : 'btn'}
            disabled={busy}
            onClick={() => onSubmit(planAnswer(optionId))}
          >
            {planChoiceLabels[optionId] ??
              interaction.options.find((option) => option.optionId === optionId)?.name ??
              optionId}
          </button>
        ))}
        <button type="button" className="btn btn-ghost" disabled={busy} onClick={() => onSubmit(planAnswer(null))}>
          Keep planning
        </button>
      </div>
    </>
  );
}

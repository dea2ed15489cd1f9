/** The demo model's features, one click each (keywords of the demo scenario in mock-anthropic). */
export const demoPrompts: readonly { prompt: string; shows: string }[] = [
  { prompt: 'Show me a markdown answer', shows: 'Streaming markdown with a table and code' },
  { prompt: 'Run a command to create a file', shows: 'A tool that asks your permission' },
  { prompt: 'Edit a file and show me the diff', shows: 'A file written, then edited, as a diff' },
  { prompt: 'Make a plan and work through it', shows: 'A plan in the task panel, step by step' },
  { prompt: 'Ask me a question', shows: 'A multiple-choice question form' },
  { prompt: 'Start a background job', shows: 'A job that reports when it ends' },
  { prompt: 'Give me a slow, long answer', shows: 'A 20 s stream to try Stop on' },
];

export function DemoPrompts({ onPick, disabled }: { onPick: (prompt: string) => void; disabled: boolean }) {
  return (
    <div className="demo-prompts">
      {demoPrompts.map(({ prompt, shows }) => (
        <button key={prompt} type="button" className="demo-prompt" disabled={disabled} onClick={() => onPick(prompt)}>
          <strong>{prompt}</strong>
          <span className="what">{shows}</span>
        </button>
      ))}
    </div>
  );
}

import { fileCompletionQuerySchema, hostLimits } from '@outrigger/host-api';
import type { Tree } from './fakeFiles.ts';
import type { FakeSession } from './fakeSession.ts';
import { HttpError } from './httpError.ts';
import type { ReviewRoute } from './reviewRoutes.ts';

/** The models real Claude Code reports (2.1.332), with its descriptions. */
export const fixtureModels = [
  {
    value: 'default',
    name: 'Default (recommended)',
    description: 'Use the default model (currently Opus 5.5) · $4/$20 per Mtok',
  },
  { value: 'opus', name: 'Opus', description: 'Opus 5.5 · Best for everyday, complex tasks · $4/$20 per Mtok' },
  {
    value: 'fable',
    name: 'Fable',
    description: 'Fable 5.2 · Most capable for your hardest and longest-running tasks · $8/$40 per Mtok',
  },
  { value: 'sonnet', name: 'Sonnet', description: 'Sonnet 5.5 · Efficient for routine tasks · $2/$10 per Mtok' },
  { value: 'haiku', name: 'Haiku', description: 'Haiku 5.5 · Fastest for quick answers · $0.10/$0.50 per Mtok' },
];

/** Some of what real Claude Code reports for a project with a `.claude/commands/deploy.md`. */
export const fixtureCommands = [
  { name: 'deploy', description: 'Deploy the app (project)', input: { hint: '[environment]' } },
  {
    name: 'compact',
    description: 'Free up context by summarizing the conversation so far',
    input: { hint: '<optional custom summarization instructions>' },
  },
  { name: 'context', description: 'Show current context usage' },
  {
    name: 'code-review',
    description: 'Review the current diff, or a PR number/branch/path target, for correctness bugs',
  },
  { name: 'init', description: 'Initialize a new CLAUDE.md file with codebase documentation' },
  { name: 'model', description: 'Set the AI model for Claude Code', input: { hint: '<model>' } },
  { name: 'review', description: 'Review a pull request' },
  { name: 'security-review', description: 'Complete a security review of the pending changes on the current branch' },
  { name: 'usage', description: 'Show session cost, plan usage, and what’s contributing to your limits' },
];

/** As the host answers a model Claude Code rejected (the API has no `gpt-*`). */
export function rejectedModel(model: string | undefined): HttpError | undefined {
  if (model === undefined || !/^gpt/i.test(model)) return undefined;
  const message = `Claude Code rejected the model "${model}": Model '${model}' not found. Pick one of the models Claude Code lists, or another model id it accepts.`;
  return new HttpError('validation_failed', message, [{ path: 'model', message }]);
}

/** The composer's routes of the fixture host: models, a session's slash commands, `@` file completion. */
export function composerRoutes(sessionOf: (id: string) => FakeSession, filesOf: (cwd: string) => Tree): ReviewRoute[] {
  return [
    ['GET', /^\/api\/models$/, async () => ({ models: fixtureModels, reportedAt: Date.now() })],
    [
      'GET',
      /^\/api\/sessions\/([^/]+)\/commands$/,
      async (m) => {
        sessionOf(m[1]!);
        return { commands: fixtureCommands };
      },
    ],
    [
      'GET',
      /^\/api\/sessions\/([^/]+)\/files$/,
      async (m, _body, request) => {
        const session = sessionOf(m[1]!);
        const query = Object.fromEntries(new URL(request.url ?? '/', 'http://x').searchParams);
        const wanted = (fileCompletionQuerySchema.parse(query).prefix ?? '').replace(/^(\.\/)+/, '').toLowerCase();
        const files = [...filesOf(session.detail.cwd).keys()];
        const directories = new Set<string>();
        for (const path of files) {
          for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1))
            directories.add(`${path.slice(0, slash)}/`);
        }
        const entries = [
          ...[...directories].map((path) => ({ path, kind: 'directory' as const })),
          ...files.map((path) => ({ path, kind: 'file' as const })),
        ]
          .filter((entry) => entry.path.toLowerCase().includes(wanted))
          .sort((a, b) => a.path.length - b.path.length || a.path.localeCompare(b.path));
        return {
          entries: entries.slice(0, hostLimits.fileCompletionsMax),
          truncated: entries.length > hostLimits.fileCompletionsMax,
          source: 'git',
        };
      },
    ],
  ];
}

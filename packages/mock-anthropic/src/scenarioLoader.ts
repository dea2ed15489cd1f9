import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { z } from 'zod';
import { errorMessage } from './errorMessage.ts';
import { type Scenario, scenarioSchema } from './scenarioSchema.ts';

export interface ScenarioProblem {
  /** e.g. `rules[2].reply.content[0].type`; empty for the document itself. */
  path: string;
  message: string;
}

/** A scenario that cannot be used; the message names the source and every offending field path. */
export class ScenarioError extends Error {
  readonly sourceName: string;
  readonly problems: readonly ScenarioProblem[];

  constructor(sourceName: string, problems: readonly ScenarioProblem[]) {
    super(
      problems.map((problem) => `scenario ${sourceName}: ${problem.path || '(root)'}: ${problem.message}`).join('\n'),
    );
    this.name = 'ScenarioError';
    this.sourceName = sourceName;
    this.problems = problems;
  }
}

/** Validates scenario data (an object, or JSON text) and returns it with its replies normalised. */
export function parseScenario(json: unknown, sourceName: string): Scenario {
  let data = json;
  if (typeof json === 'string') {
    try {
      data = JSON.parse(json);
    } catch (error) {
      throw new ScenarioError(sourceName, [{ path: '', message: `not valid JSON (${errorMessage(error)})` }]);
    }
  }
  const parsed = scenarioSchema.safeParse(data);
  if (!parsed.success) throw new ScenarioError(sourceName, toProblems(parsed.error.issues));
  return parsed.data;
}

/** Reads and validates a scenario JSON file; errors name the file by its base name. */
export function loadScenarioFile(path: string): Scenario {
  const sourceName = basename(path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ScenarioError(sourceName, [{ path: '', message: `cannot read ${path} (${errorMessage(error)})` }]);
  }
  return parseScenario(text, sourceName);
}

function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** Turns zod issues into problems whose paths start with `pathPrefix`. */
export function toProblems(
  issues: readonly z.core.$ZodIssue[],
  pathPrefix: readonly PropertyKey[] = [],
): ScenarioProblem[] {
  return issues.map((issue) => toProblem(issue, pathPrefix));
}

function toProblem(issue: z.core.$ZodIssue, pathPrefix: readonly PropertyKey[]): ScenarioProblem {
  let message = issue.message;
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    // zod's own text for a union is just "Invalid input"; list what each alternative wanted instead.
    const alternatives = issue.errors.map((branch) =>
      branch
        .map((inner) => `${formatIssuePath(inner.path)}${inner.path.length ? ': ' : ''}${inner.message}`)
        .join('; '),
    );
    message = `none of the accepted forms fit: ${alternatives.join(' | ')}`;
  }
  return { path: formatIssuePath([...pathPrefix, ...issue.path]), message };
}

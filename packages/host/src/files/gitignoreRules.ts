/*
 * `.gitignore` matching for the bounded walk of a directory that is not a git repository (in a repository git
 * itself decides, `git ls-files --exclude-standard`). The subset every project uses: comments, blank lines,
 * `!` negation, a trailing `/` for directories only, a `/` anywhere anchoring to the file's directory, `*`, `?`,
 * `**` and `[…]`. The last matching rule wins, deeper files after shallower ones, as in git.
 */

interface Rule {
  readonly negate: boolean;
  readonly directoryOnly: boolean;
  /** Matches the path relative to the directory of the `.gitignore` (anchored) or a single name. */
  readonly pattern: RegExp;
  readonly anchored: boolean;
  /** The `.gitignore`'s directory, relative to the walk's root (`''` at the root), ending in `/` unless empty. */
  readonly base: string;
}

export class GitignoreRules {
  readonly #rules: readonly Rule[];

  private constructor(rules: readonly Rule[]) {
    this.#rules = rules;
  }

  static readonly none = new GitignoreRules([]);

  /** These rules plus those of a `.gitignore` found in `directory` (relative to the root, `''` for the root). */
  with(directory: string, text: string): GitignoreRules {
    const base = directory === '' ? '' : `${directory}/`;
    const added = text
      .split(/\r?\n/)
      .map((line) => parseRule(line, base))
      .filter((rule) => rule !== undefined);
    return added.length === 0 ? this : new GitignoreRules([...this.#rules, ...added]);
  }

  /** Whether `path` (relative to the root, `/` separated) is ignored; `directory` for a directory. */
  ignores(path: string, directory: boolean): boolean {
    let ignored = false;
    for (const rule of this.#rules) {
      if (rule.directoryOnly && !directory) continue;
      if (!path.startsWith(rule.base)) continue;
      const relative = path.slice(rule.base.length);
      const subject = rule.anchored ? relative : relative.slice(relative.lastIndexOf('/') + 1);
      if (rule.pattern.test(subject)) ignored = !rule.negate;
    }
    return ignored;
  }
}

function parseRule(line: string, base: string): Rule | undefined {
  let text = line.replace(/(?<!\\)\s+$/, '');
  if (text === '' || text.startsWith('#')) return undefined;
  const negate = text.startsWith('!');
  if (negate) text = text.slice(1);
  text = text.replace(/^\\([#!])/, '$1');
  const directoryOnly = text.endsWith('/');
  if (directoryOnly) text = text.replace(/\/+$/, '');
  if (text === '') return undefined;
  const anchored = text.includes('/');
  if (text.startsWith('/')) text = text.slice(1);
  return { negate, directoryOnly, anchored, base, pattern: new RegExp(`^${globToRegex(text)}$`) };
}

function globToRegex(glob: string): string {
  let out = '';
  for (let index = 0; index < glob.length; index++) {
    const char = glob[index] as string;
    if (char === '*') {
      if (glob[index + 1] === '*') {
        const slashAfter = glob[index + 2] === '/';
        out += slashAfter ? '(?:.*/)?' : '.*';
        index += slashAfter ? 2 : 1;
      } else {
        out += '[^/]*';
      }
    } else if (char === '?') {
      out += '[^/]';
    } else if (char === '[') {
      const end = glob.indexOf(']', index + 2);
      if (end === -1) {
        out += '\\[';
      } else {
        const body = glob
          .slice(index + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        out += `[${body}]`;
        index = end;
      }
    } else if (char === '\\' && index + 1 < glob.length) {
      out += escapeRegex(glob[index + 1] as string);
      index += 1;
    } else {
      out += escapeRegex(char);
    }
  }
  // `dir/**` also matches everything inside `dir`; the `.*` above already covers it.
  return out;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

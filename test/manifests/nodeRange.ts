/**
 * Just enough of npm's semver ranges to read `engines.node` fields: alternatives joined by `||`, each a
 * list of comparators (`>=X`, `>= X`, `>X`, `<X`, `<=X`, `^X`, `~X`, `X`, partial versions and `x`
 * wildcards). A form it does not know throws, so a new kind of range in the lockfile is noticed, not
 * silently passed.
 */
export type Version = readonly [major: number, minor: number, patch: number];

interface Comparator {
  readonly op: '>=' | '<' | '>' | '<=';
  readonly version: Version;
}

export function parseVersion(text: string): Version {
  const match = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(text.trim());
  if (!match) throw new Error(`not a version: ${text}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

export function compareVersions(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** `20`, `20.19`, `20.19.0`, `10.x`: the given parts, undefined where absent or a wildcard. */
function partial(text: string, range: string): (number | undefined)[] {
  const parts = text.split('.');
  if (parts.length > 3 || parts.some((part) => !/^(\d+|x|X|\*)$/.test(part))) {
    throw new Error(`unsupported version "${text}" in the range "${range}"`);
  }
  return [0, 1, 2].map((index) => {
    const part = parts[index];
    return part === undefined || !/^\d+$/.test(part) ? undefined : Number(part);
  });
}

function floor(parts: readonly (number | undefined)[]): Version {
  return [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
}

/** The first version past everything `parts` names (`20.19` → 20.20.0, `20` → 21.0.0). */
function ceiling(parts: readonly (number | undefined)[]): Version {
  const [major = 0, minor, patch] = parts;
  if (minor === undefined) return [major + 1, 0, 0];
  if (patch === undefined) return [major, minor + 1, 0];
  return [major, minor, patch + 1];
}

function comparators(token: string, range: string): Comparator[] {
  const match = /^(>=|<=|>|<|\^|~|=)?(.*)$/.exec(token);
  const op = match?.[1] ?? '';
  const parts = partial(match?.[2] ?? '', range);
  const [major = 0, minor, patch] = parts;
  switch (op) {
    case '>=':
      return [{ op: '>=', version: floor(parts) }];
    case '>':
      return [{ op: '>=', version: ceiling(parts) }];
    case '<':
      return [{ op: '<', version: floor(parts) }];
    case '<=':
      return [{ op: '<', version: ceiling(parts) }];
    case '^': {
      // The left-most non-zero part may not change.
      const upper: Version =
        major > 0 || minor === undefined
          ? [major + 1, 0, 0]
          : minor > 0 || patch === undefined
            ? [0, minor + 1, 0]
            : [0, 0, patch + 1];
      return [
        { op: '>=', version: floor(parts) },
        { op: '<', version: upper },
      ];
    }
    case '~':
      return [
        { op: '>=', version: floor(parts) },
        { op: '<', version: minor === undefined ? [major + 1, 0, 0] : [major, minor + 1, 0] },
      ];
    default:
      return [
        { op: '>=', version: floor(parts) },
        { op: '<', version: ceiling(parts) },
      ];
  }
}

/** The range as alternatives of comparators (operators joined to their versions first: `>= 18` is `>=18`). */
function alternatives(range: string): Comparator[][] {
  return range.split('||').map((alternative) => {
    const tokens = alternative
      .trim()
      .replace(/(>=|<=|>|<|\^|~|=)\s+/g, '$1')
      .split(/\s+/)
      .filter((token) => token !== '');
    if (tokens.length === 0) throw new Error(`empty alternative in the range "${range}"`);
    return tokens.flatMap((token) => comparators(token, range));
  });
}

export function satisfies(version: Version, range: string): boolean {
  return alternatives(range).some((alternative) =>
    alternative.every(({ op, version: bound }) => {
      const order = compareVersions(version, bound);
      return op === '>=' ? order >= 0 : order < 0;
    }),
  );
}

/**
 * Every version at which any of `ranges` can change its answer: each comparator's bound (and 0.0.0).
 * Each range answers the same for every version from one of these up to the next, so checking these
 * versions checks all versions.
 */
export function boundaryVersions(ranges: readonly string[]): Version[] {
  const found = new Map<string, Version>([['0.0.0', [0, 0, 0]]]);
  for (const range of ranges) {
    for (const alternative of alternatives(range)) {
      for (const { version } of alternative) found.set(version.join('.'), version);
    }
  }
  return [...found.values()].sort(compareVersions);
}

import type { ReleaseTarball } from './packRelease.ts';

/** Compressed-size budgets: the bundles as they are now, with room to grow, and an alarm for an accident. */
export const SIZE_BUDGET_BYTES: Readonly<Record<string, number>> = {
  outrigger: 1_500_000,
  '@outrigger/claude-sdk-sidecar': 400_000,
  '@outrigger/protocol': 150_000,
  '@outrigger/host-api': 150_000,
};

const TEST_FILE = /(^|\/)(test|tests|testing|__tests__|fixtures)\/|\.test\.[cm]?[jt]s$|\.fuzz\.[cm]?[jt]s$/;
const UNSHIPPABLE = /(^|\/)(\.data|node_modules|\.compile-cache|\.git)(\/|$)|\.tsbuildinfo$|\.log$/;

/**
 * Why a tarball must not be published: a test file, a data directory or cache, a source map that names an
 * absolute path (`readText` reads a file of the unpacked tarball), or a size over its budget.
 */
export function tarballProblems(tarball: ReleaseTarball, readText: (path: string) => string): string[] {
  const problems: string[] = [];
  for (const { path } of tarball.files) {
    if (TEST_FILE.test(path)) problems.push(`${tarball.name} ships a test file: ${path}`);
    if (UNSHIPPABLE.test(path)) problems.push(`${tarball.name} ships ${path}`);
    if (path.endsWith('.map')) {
      const map = JSON.parse(readText(path)) as { sources?: string[]; sourceRoot?: string };
      const absolute = [map.sourceRoot ?? '', ...(map.sources ?? [])].filter((source) =>
        /^(\/|[A-Za-z]:[\\/]|file:)/.test(source),
      );
      if (absolute.length > 0) problems.push(`${tarball.name}: ${path} names absolute paths (${absolute[0]})`);
    }
  }
  const budget = SIZE_BUDGET_BYTES[tarball.name];
  if (budget === undefined) problems.push(`${tarball.name} has no size budget`);
  else if (tarball.bytes > budget) problems.push(`${tarball.name} is ${tarball.bytes} bytes, over its ${budget}`);
  return problems;
}

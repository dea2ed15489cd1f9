import { statSync } from 'node:fs';
import { createRequire } from 'node:module';

const SDK_PACKAGE = '@anthropic-ai/claude-agent-sdk';

export interface ExecutableResolution {
  /** Path of the native binary the SDK would pick by itself, if it is installed. */
  bundledBinary?: () => string | undefined;
  isFile?: (path: string) => boolean;
}

/**
 * The `pathToClaudeCodeExecutable` override for a Query, or undefined to let the SDK use its own
 * platform binary. An explicit `CLAUDE_CODE_EXECUTABLE` always wins; the fallback executable is used
 * only when the SDK's optional platform package is missing (e.g. installed with `--omit=optional`).
 */
export function resolveClaudeExecutable(
  env: Readonly<Record<string, string | undefined>>,
  { bundledBinary = findBundledClaudeBinary, isFile = isExistingFile }: ExecutableResolution = {},
): string | undefined {
  const explicit = env.CLAUDE_CODE_EXECUTABLE?.trim();
  if (explicit) return explicit;
  if (bundledBinary()) return undefined;
  const fallback = env.TUTTI_CLAUDE_CODE_FALLBACK_EXECUTABLE?.trim();
  return fallback && isFile(fallback) ? fallback : undefined;
}

export interface PlatformTarget {
  platform: NodeJS.Platform;
  arch: string;
  musl: boolean;
}

/** Package paths the SDK tries for its native binary, in its own order (musl hosts prefer the musl build). */
export function bundledBinaryCandidates({ platform, arch, musl }: PlatformTarget): string[] {
  const exe = platform === 'win32' ? 'claude.exe' : 'claude';
  const linux = [`${SDK_PACKAGE}-linux-${arch}`, `${SDK_PACKAGE}-linux-${arch}-musl`];
  const packages = platform === 'linux' ? (musl ? linux.reverse() : linux) : [`${SDK_PACKAGE}-${platform}-${arch}`];
  return packages.map((name) => `${name}/${exe}`);
}

/** Resolves the platform binary from the SDK's own location, as the SDK does. */
export function findBundledClaudeBinary(
  target: PlatformTarget = currentTarget(),
  isFile: (path: string) => boolean = isExistingFile,
): string | undefined {
  let requireFromSdk: NodeJS.Require;
  try {
    requireFromSdk = createRequire(createRequire(import.meta.url).resolve(SDK_PACKAGE));
  } catch {
    return undefined;
  }
  for (const candidate of bundledBinaryCandidates(target)) {
    try {
      const path = requireFromSdk.resolve(candidate);
      if (isFile(path)) return path;
    } catch {
      // Not installed for this platform; try the next variant.
    }
  }
  return undefined;
}

let cachedTarget: PlatformTarget | undefined;

function currentTarget(): PlatformTarget {
  cachedTarget ??= { platform: process.platform, arch: process.arch, musl: isMuslRuntime() };
  return cachedTarget;
}

function isMuslRuntime(): boolean {
  if (process.platform !== 'linux') return false;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header?.glibcVersionRuntime === undefined;
}

function isExistingFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

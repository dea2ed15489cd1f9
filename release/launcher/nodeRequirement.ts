/** The oldest Node the installed `outrigger` runs on: `node:sqlite` without a flag, and the APIs the host uses. */
export const REQUIRED_NODE = '22.18.0';

function parts(version: string): number[] {
  return version
    .replace(/^v/, '')
    .split('.')
    .map((part) => Number.parseInt(part, 10) || 0);
}

export function isAtLeast(version: string, required: string): boolean {
  const have = parts(version);
  const need = parts(required);
  for (let index = 0; index < need.length; index += 1) {
    const difference = (have[index] ?? 0) - (need[index] ?? 0);
    if (difference !== 0) return difference > 0;
  }
  return true;
}

/** One line for a Node that is too old (what is needed, what was found, how to get it); undefined when it will do. */
export function nodeProblem(version: string, execPath: string, required: string = REQUIRED_NODE): string | undefined {
  if (isAtLeast(version, required)) return undefined;
  const major = required.split('.')[0];
  return `outrigger needs Node.js ${required} or newer (for node:sqlite); this is Node.js ${version.replace(/^v/, '')} (${execPath}). Install a current LTS from https://nodejs.org, or with a version manager: nvm install ${major}`;
}

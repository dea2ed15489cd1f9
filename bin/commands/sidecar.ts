import { pathToFileURL } from 'node:url';
import { PACKAGE_LAYOUT } from '../packageLayout.ts';
import { parseCommandLine } from './commandLine.ts';

export const SIDECAR_USAGE = `usage: outrigger sidecar

Runs the protocol-10 Claude SDK sidecar: requests as NDJSON lines on stdin, responses and events on
stdout (protocol lines only), diagnostics on stderr. It exits 0 when stdin ends, after closing every
session. From the repository, on any Node: npx outrigger sidecar (or npm run -s outrigger -- sidecar;
without -s npm prints its own lines to stdout). The protocol is in docs/protocol.md, the environment
variables in packages/claude-sdk-sidecar/README.md.

  -h, --help  this help
`;

export async function runSidecarCommand(argv: string[]): Promise<void> {
  if (parseCommandLine({ name: 'sidecar', usage: SIDECAR_USAGE, options: {} }, argv) === undefined) return;
  // The sidecar's entry module starts serving when it is loaded and exits the process when stdin ends. The
  // installed package runs the sidecar's own bundle, which it carries beside the CLI.
  const { sidecarEntry } = PACKAGE_LAYOUT;
  if (sidecarEntry === undefined) await import('@outrigger/claude-sdk-sidecar/main');
  else await import(pathToFileURL(sidecarEntry).href);
}

import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { findOrStartHost, type StartedHost, serveAcpOnStdio } from '@outrigger/acp';
import { defaultDataDir, readHostLock } from '@outrigger/host';
import packageJson from '../../package.json' with { type: 'json' };
import { parseCommandLine } from './commandLine.ts';
import { errorText } from './errorText.ts';

export const ACP_USAGE = `usage: outrigger acp [--data-dir DIR]

Speaks the Agent Client Protocol (v1) on stdin/stdout, for editors such as Zed, JetBrains IDEs and Neovim:
configure it as the agent's command. It works through the host that serves the data directory, and starts
one in the background when none runs (the host outlives the editor; open its URL to see the same sessions in
the browser). Diagnostics go to stderr. docs/acp.md has the editor settings.

  --data-dir DIR  the host's data directory (default: as for outrigger serve)
  -h, --help      show this help
`;

/** `outrigger acp`: the editor's agent process. */
export async function runAcpCommand(argv: string[]): Promise<void> {
  const values = parseCommandLine({ name: 'acp', usage: ACP_USAGE, options: { 'data-dir': { type: 'string' } } }, argv);
  if (values === undefined) return;
  const dataDir = resolve(values['data-dir'] ?? defaultDataDir());
  const log = (line: string) => process.stderr.write(`outrigger acp: ${line}\n`);
  try {
    const endpoint = await findOrStartHost({
      dataDir,
      readLock: readHostLock,
      startHost: () => startHostProcess(dataDir),
      log,
    });
    await serveAcpOnStdio({ endpoint, version: packageJson.version, log });
  } catch (error) {
    log(errorText(error));
    process.exitCode = 1;
  }
  // The editor closed the pipe: nothing of ours is left to wait for (the streams to the host end with us).
  process.exit();
}

/** `outrigger serve` on the data directory, in its own process group so that it outlives the editor. */
function startHostProcess(dataDir: string): StartedHost {
  const child = spawn(
    process.execPath,
    [...process.execArgv, process.argv[1] as string, 'serve', '--data-dir', dataDir],
    {
      detached: true,
      // Its stdout prints the URL with the token: not into the editor's log.
      stdio: ['ignore', 'ignore', 'pipe'],
      env: process.env,
    },
  );
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4_000);
  });
  const exited = new Promise<{ code: number | null; stderr: string }>((resolveExit) => {
    child.once('exit', (code) => resolveExit({ code, stderr }));
    child.once('error', (error) => resolveExit({ code: null, stderr: error.message }));
  });
  return {
    exited,
    detach: () => {
      child.stderr?.destroy();
      child.unref();
    },
  };
}

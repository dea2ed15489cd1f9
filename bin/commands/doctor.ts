import { findModelCredential } from '@outrigger/claude-sdk-sidecar/credentials';
import { DATA_DIR_VARIABLE, DEFAULT_PORT, parseServeArgs } from '@outrigger/host';
import { anyFailed, type CheckResult, formatChecks } from './doctor/checkResult.ts';
import { checkClaudeCode } from './doctor/claudeCodeCheck.ts';
import { checkCredential } from './doctor/credentialCheck.ts';
import { checkDataDir } from './doctor/dataDirCheck.ts';
import { checkNode } from './doctor/nodeCheck.ts';
import { checkPort } from './doctor/portCheck.ts';

export const DOCTOR_USAGE = `usage: outrigger doctor [--data-dir DIR] [--port N] [--host ADDR]

Checks what outrigger serve needs, one line each, and exits 1 when any check fails: Node, the Claude Code
binary of the SDK (present, runs, its version), which credential Claude Code would use and where it was found
(never the credential itself; none is no failure, the demo model answers), the data directory (exists or can
be made, 0700, writable, free space) and whether the port can be listened on. Nothing is changed.

  --data-dir DIR  the data directory to check (default: as for outrigger serve: $${DATA_DIR_VARIABLE}, else
                  .data in the repository, else ~/.local/share/outrigger or the platform's equivalent)
  --port N        the port to check (default ${DEFAULT_PORT}; 0: any free port)
  --host ADDR     the address to check it on (default 127.0.0.1)
  -h, --help      show this help

The other options of outrigger serve are accepted too, so the same command line can be checked.
`;

/** `outrigger doctor`: read-only checks of the setup `outrigger serve` would run with. */
export async function runDoctorCommand(argv: string[]): Promise<void> {
  // serve's own parser: the data directory, host and port are resolved exactly as serve resolves them.
  const parsed = parseServeArgs(argv);
  if (parsed.kind === 'help') {
    process.stdout.write(DOCTOR_USAGE);
    return;
  }
  if (parsed.kind === 'error') {
    process.stderr.write(`outrigger doctor: ${parsed.message}\n\n${DOCTOR_USAGE}`);
    process.exitCode = 2;
    return;
  }
  const { options } = parsed;
  const env = process.env;
  const results: CheckResult[] = [
    checkNode({ version: process.version, execPath: process.execPath }),
    await checkClaudeCode({ env }),
    // As serve asks: the environment, the user's settings files and login, no project directory.
    checkCredential(findModelCredential({ processEnv: env })),
    ...(await checkDataDir({ dir: options.dataDir })),
    await checkPort({ host: options.host, port: options.port, tls: options.tls !== undefined }),
  ];
  process.stdout.write(formatChecks(results));
  if (anyFailed(results)) process.exitCode = 1;
}

import { join, resolve } from 'node:path';
import { parseArgs, styleText } from 'node:util';
import { DEFAULT_PORT, defaultDataDir, rotateToken } from '@outrigger/host';

export const TOKEN_USAGE = `usage: outrigger token rotate [--data-dir DIR] [--port N]

Replaces the host's access token with a new one and prints the URL to open with it. A host running on the
same data directory takes the new token within a second, without a restart: every open tab, cookie, bookmark
and bearer token with the old one stops working (open the new URL to get back in).

  --data-dir DIR  the host's data directory (default: as for outrigger serve)
  --port N        the port the host listens on, for the printed URL (default ${DEFAULT_PORT})
  -h, --help      show this help
`;

/** `outrigger token rotate`: a new token for the owner of the data directory (the terminal is theirs). */
export async function runTokenCommand(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      'data-dir': { type: 'string' },
      port: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: true,
  });
  if (values.help === true) {
    process.stdout.write(TOKEN_USAGE);
    return;
  }
  const [action, ...extra] = positionals;
  if (action !== 'rotate' || extra.length > 0) {
    const what = action === undefined ? 'a subcommand is needed' : `unknown subcommand '${positionals.join(' ')}'`;
    process.stderr.write(`outrigger token: ${what}\n\n${TOKEN_USAGE}`);
    process.exitCode = 2;
    return;
  }
  const port = values.port ?? String(DEFAULT_PORT);
  if (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535) {
    process.stderr.write(`outrigger token: --port must be a port number (1-65535), not '${port}'\n`);
    process.exitCode = 2;
    return;
  }
  const dataDir = resolve(values['data-dir'] ?? defaultDataDir());
  const tokenFile = join(dataDir, 'token');
  const token = await rotateToken(tokenFile);
  const url = `http://127.0.0.1:${port}/?token=${token}`;
  const { stdout } = process;
  stdout.write(`New token written to ${tokenFile}. A running host uses it from now on; the old one is refused.\n`);
  stdout.write(`\nOpen:\n\n  ${styleText('bold', url, { stream: stdout })}\n\n`);
  stdout.write('(https instead of http if the host was started with --tls-cert; another port if it printed one.)\n');
}

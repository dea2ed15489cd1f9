import { isIPv4 } from 'node:net';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DATA_DIR_VARIABLE, defaultDataDir, defaultSessionCwd, type InstallationContext } from './installation.ts';

/** The port `outrigger serve` tries first; the next few are tried when it is taken and no `--port` was given. */
export const DEFAULT_PORT = 7420;
export const DEFAULT_PORT_TRIES = 10;

export const SERVE_USAGE = `usage: outrigger serve [--port N] [--host ADDR] [--data-dir DIR] [--allow-root DIR]... [--tool-timeout SEC]
                       [--tls-cert FILE --tls-key FILE] [--insecure-remote]

Runs the Outrigger host: durable Claude Code sessions behind an HTTP + SSE API and the web UI, and prints
the URL to open (with its access token). Without ANTHROPIC_API_KEY (or another credential) it runs the
offline demo model and says so.

  --port N           listen on this port (default ${DEFAULT_PORT}, or the next free one up to ${DEFAULT_PORT + DEFAULT_PORT_TRIES - 1};
                     0: any free port)
  --host ADDR        listen on this address (default 127.0.0.1). An address other than loopback is refused
                     unless --tls-cert/--tls-key are given (or --insecure-remote); to reach the host from
                     another machine, prefer SSH forwarding: ssh -L ${DEFAULT_PORT}:127.0.0.1:${DEFAULT_PORT} HOST
  --tls-cert FILE    serve HTTPS with this PEM certificate (with --tls-key); the cookie is then Secure
  --tls-key FILE     the PEM private key of --tls-cert
  --insecure-remote  allow a non-loopback --host over plain HTTP: the token and the cookie cross the
                     network in clear text
  --data-dir DIR     where the host keeps its database, token and logs (default: $${DATA_DIR_VARIABLE}, else
                     .data in the repository, else ~/.local/share/outrigger or the platform's equivalent)
  --allow-root DIR   sessions may only run in directories under DIR (repeatable; default: anywhere)
  --tool-timeout SEC cancel a turn whose tool runs longer than this (default: off)
  -h, --help         show this help
`;

export interface ServeOptions {
  readonly host: string;
  readonly port: number;
  /** No `--port` was given: try the next ports when the default is taken. */
  readonly portFallback: boolean;
  readonly dataDir: string;
  /** Where a new session starts when its request names no directory; unset: the first root, or the data dir's workspace. */
  readonly defaultCwd?: string;
  readonly allowRoots: readonly string[];
  readonly toolTimeoutMs: number | undefined;
  /** `--tls-cert` and `--tls-key`: serve HTTPS. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string };
  /** `--insecure-remote`: a non-loopback address over plain HTTP, on purpose. */
  readonly insecureRemote?: boolean;
}

/**
 * Addresses only this machine can reach. `localhost` counts as loopback because the resolver maps it there
 * (RFC 6761); a name that only resolves to loopback today (a hosts-file entry) does not.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  const v4 = bare.startsWith('::ffff:') ? bare.slice('::ffff:'.length) : bare;
  return isIPv4(v4) && v4.startsWith('127.');
}

/** Why a non-loopback address is refused, and the three ways on. */
export function remoteRefusal(host: string): string {
  return [
    `--host ${host} is reachable from other machines, and over plain HTTP the token and the session cookie would cross the network in clear text.`,
    `Reach the host through SSH instead (ssh -L ${DEFAULT_PORT}:127.0.0.1:${DEFAULT_PORT} HOST, then open the printed URL locally),`,
    'serve HTTPS with --tls-cert FILE --tls-key FILE, or pass --insecure-remote to accept the risk.',
  ].join('\n');
}

export type ServeArgs = { kind: 'help' } | { kind: 'error'; message: string } | { kind: 'run'; options: ServeOptions };

export function parseServeArgs(
  argv: readonly string[],
  cwd = process.cwd(),
  installation?: InstallationContext,
): ServeArgs {
  let values: {
    port?: string;
    host?: string;
    'data-dir'?: string;
    'allow-root'?: string[];
    'tool-timeout'?: string;
    'tls-cert'?: string;
    'tls-key'?: string;
    'insecure-remote'?: boolean;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'data-dir': { type: 'string' },
        'allow-root': { type: 'string', multiple: true },
        'tool-timeout': { type: 'string' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        'insecure-remote': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return { kind: 'error', message: error instanceof Error ? error.message : String(error) };
  }
  if (values.help === true) return { kind: 'help' };
  let port = DEFAULT_PORT;
  if (values.port !== undefined) {
    if (!/^\d+$/.test(values.port) || Number(values.port) > 65535) {
      return { kind: 'error', message: `--port must be a port number (0-65535), not '${values.port}'` };
    }
    port = Number(values.port);
  }
  let toolTimeoutMs: number | undefined;
  if (values['tool-timeout'] !== undefined) {
    const seconds = Number(values['tool-timeout']);
    if (!Number.isFinite(seconds) || seconds <= 0) {
      return {
        kind: 'error',
        message: `--tool-timeout must be a positive number of seconds, not '${values['tool-timeout']}'`,
      };
    }
    toolTimeoutMs = Math.round(seconds * 1000);
  }
  const host = values.host ?? '127.0.0.1';
  if (host.trim() === '') return { kind: 'error', message: '--host must not be empty' };
  const certFile = values['tls-cert'];
  const keyFile = values['tls-key'];
  if ((certFile === undefined) !== (keyFile === undefined)) {
    return { kind: 'error', message: '--tls-cert and --tls-key go together: give both, or neither' };
  }
  const tls =
    certFile !== undefined && keyFile !== undefined
      ? { certFile: resolve(cwd, certFile), keyFile: resolve(cwd, keyFile) }
      : undefined;
  const insecureRemote = values['insecure-remote'] === true;
  if (!isLoopbackHost(host) && tls === undefined && !insecureRemote)
    return { kind: 'error', message: remoteRefusal(host) };
  return {
    kind: 'run',
    options: {
      host,
      port,
      portFallback: values.port === undefined,
      dataDir: resolve(cwd, values['data-dir'] ?? defaultDataDir(installation)),
      allowRoots: (values['allow-root'] ?? []).map((root) => resolve(cwd, root)),
      toolTimeoutMs,
      ...definedCwd(defaultSessionCwd(cwd, installation?.fromSources)),
      ...(tls === undefined ? {} : { tls }),
      ...(insecureRemote ? { insecureRemote } : {}),
    },
  };
}

function definedCwd(defaultCwd: string | undefined): { defaultCwd?: string } {
  return defaultCwd === undefined ? {} : { defaultCwd };
}

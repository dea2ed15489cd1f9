import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer } from 'node:net';
import { type CheckResult, fail, ok } from './checkResult.ts';

export interface PortInputs {
  readonly host: string;
  readonly port: number;
  /** The host would serve HTTPS (`--tls-cert`): ask over TLS who holds the port. */
  readonly tls?: boolean;
  /** Whether an Outrigger host answers at the address; the real one asks over HTTP. */
  readonly isOutriggerHost?: (address: { host: string; port: number; tls: boolean }) => Promise<boolean>;
}

/**
 * Binds `host:port` for a moment, as `outrigger serve` would. When the port is taken, asks whether the one
 * holding it is an Outrigger host (another `serve` on the same port is the usual cause) or something else.
 */
export async function checkPort(inputs: PortInputs): Promise<CheckResult> {
  const { host, port } = inputs;
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const bound = await tryBind(host, port);
  if (bound.ok) {
    return ok('port', port === 0 ? `${host}: any free port (${bound.port} is free now)` : `${address} is free`);
  }
  switch (bound.code) {
    case 'EADDRINUSE': {
      const isOutrigger = inputs.isOutriggerHost ?? askIsOutriggerHost;
      const outrigger = await isOutrigger({ host, port, tls: inputs.tls === true });
      const who = outrigger
        ? 'an Outrigger host is already running there'
        : 'by something that is not an Outrigger host';
      return fail('port', `${address} is in use, ${who} (pass --port N, or --port 0 for any free port)`);
    }
    case 'EACCES':
      return fail('port', `${address}: not allowed to listen there (a port below 1024 needs privileges)`);
    case 'EADDRNOTAVAIL':
      return fail('port', `${address}: ${host} is not an address of this machine`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return fail('port', `${address}: ${host} does not resolve`);
    default:
      return fail('port', `${address}: cannot listen (${bound.code})`);
  }
}

type BindResult = { readonly ok: true; readonly port: number } | { readonly ok: false; readonly code: string };

function tryBind(host: string, port: number): Promise<BindResult> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve({ ok: false, code: error.code ?? String(error) }));
    // Exclusive: in a cluster worker a shared handle would "succeed" on a port another process holds.
    server.listen({ host, port, exclusive: true }, () => {
      const taken = server.address();
      const boundPort = typeof taken === 'object' && taken !== null ? taken.port : port;
      server.close(() => resolve({ ok: true, port: boundPort }));
    });
  });
}

const PROBE_TIMEOUT_MS = 3_000;

/**
 * `GET /api/info` without a token: every API route of the host refuses it with 401 and
 * `WWW-Authenticate: Bearer realm="outrigger"`, which nothing else answers. No token is sent, so the
 * answer says nothing about the host but that it is one. A wildcard address is asked on loopback.
 */
export function askIsOutriggerHost(address: { host: string; port: number; tls: boolean }): Promise<boolean> {
  const host = address.host === '0.0.0.0' ? '127.0.0.1' : address.host === '::' ? '::1' : address.host;
  const request = address.tls ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    // Whatever the answer, the connection is not kept: the doctor exits right after.
    const settle = (answer: boolean) => {
      resolve(answer);
      outgoing.destroy();
    };
    const outgoing = request(
      {
        host,
        port: address.port,
        path: '/api/info',
        method: 'GET',
        agent: false,
        timeout: PROBE_TIMEOUT_MS,
        // Only asking who is there; a self-signed certificate is what `--tls-cert` usually serves.
        rejectUnauthorized: false,
      },
      (response) => {
        response.resume();
        settle(/realm="outrigger"/i.test(String(response.headers['www-authenticate'] ?? '')));
      },
    );
    outgoing.on('timeout', () => settle(false));
    outgoing.on('error', () => settle(false));
    outgoing.end();
  });
}

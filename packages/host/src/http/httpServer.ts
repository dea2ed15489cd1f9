import type { IncomingMessage, Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { createAdaptorServer, type HttpBindings } from '@hono/node-server';

export interface ListenOptions {
  /** PEM certificate and key: serve HTTPS instead of HTTP. */
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer };
  /**
   * A connection must have sent its complete request headers this long after it opened (or after its last
   * response, on keep-alive). Node's default is 60 s; with it, connections that never finish a request (or
   * send nothing) pile up until the process runs out of descriptors and nobody gets in. Default 10 s.
   */
  readonly headersTimeoutMs?: number;
  /**
   * The whole request, body included, must have arrived this long after it started (Node's default: 300 s).
   * It only covers receiving: once the request is in, the timer stops, so an SSE response can stream for
   * hours. The host's request bodies are small JSON. Default 30 s.
   */
  readonly requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this long (Node's default: 5 s). Default 5 s. */
  readonly keepAliveTimeoutMs?: number;
  /**
   * Connections beyond this are closed as they arrive, so a flood can never take the descriptors the
   * database, the log and the sidecar's pipes need. SSE streams count too: a browser tab holds one or two,
   * so 1024 leaves a single user room for hundreds of tabs and API clients, while slots taken by connections
   * that never send a request are freed by `headersTimeoutMs`. Default 1024.
   */
  readonly maxConnections?: number;
}

const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;
export const DEFAULT_MAX_CONNECTIONS = 1024;

export interface ListeningServer {
  readonly server: Server;
  readonly port: number;
  /** Stops accepting, waits for open requests up to `graceMs`, then cuts what is left (SSE streams). */
  close(graceMs?: number): Promise<void>;
}

export class PortInUseError extends Error {
  readonly port: number;
  constructor(host: string, port: number, message = `port ${port} on ${host} is already in use`) {
    super(message);
    this.name = 'PortInUseError';
    this.port = port;
  }
}

/**
 * Listens on `host:port` (port 0: any free one) and serves the app built by `build` once the port is known
 * (the security guards need it). Nothing is served before the app exists: requests only arrive after
 * `listen` returned, and the app is made in the same tick.
 */
export async function listenHost<
  A extends { fetch(request: Request, env: HttpBindings): Response | Promise<Response> },
>(
  host: string,
  port: number,
  build: (port: number) => A,
  options: ListenOptions = {},
): Promise<ListeningServer & { app: A }> {
  let app: A | undefined;
  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = Math.max(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, headersTimeout);
  const timeouts = {
    headersTimeout,
    requestTimeout,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
    // Node checks the two timeouts above only this often (default every 30 s), so a 10 s limit would in
    // truth be up to 40 s: check at least a few times per headers timeout.
    connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(headersTimeout / 4))),
  };
  const fetch = (request: Request, env: unknown) => {
    if (app === undefined) return new Response(null, { status: 503 });
    return app.fetch(request, env as HttpBindings);
  };
  const server = (
    options.tls === undefined
      ? createAdaptorServer({ fetch, serverOptions: timeouts })
      : createAdaptorServer({
          fetch,
          createServer: createHttpsServer,
          // A connection that never finishes its TLS handshake is dropped as soon as a silent one would be.
          serverOptions: {
            ...timeouts,
            handshakeTimeout: headersTimeout,
            cert: options.tls.cert,
            key: options.tls.key,
          },
        })
  ) as Server;
  // Also as properties: not every Node version reads all of them from the constructor's options.
  server.headersTimeout = timeouts.headersTimeout;
  server.requestTimeout = timeouts.requestTimeout;
  server.keepAliveTimeout = timeouts.keepAliveTimeout;
  server.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  // Node's headers timeout only starts with a connection's first byte: one that sends nothing at all would
  // hold its slot forever. An inactivity timeout until the first request arrives closes it (Node destroys a
  // socket whose timeout nobody handles); the request clears it, so an SSE stream is never cut by it.
  server.on(options.tls === undefined ? 'connection' : 'secureConnection', (socket: Socket) => {
    socket.setTimeout(headersTimeout);
  });
  server.on('request', (request: IncomingMessage) => request.socket.setTimeout(0));
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(host, port) : error);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  app = build(bound);
  return {
    server,
    port: bound,
    app,
    close: (graceMs = 2000) =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), graceMs).unref();
      }),
  };
}

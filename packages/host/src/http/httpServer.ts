import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer, type HttpBindings } from '@hono/node-server';

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
>(host: string, port: number, build: (port: number) => A): Promise<ListeningServer & { app: A }> {
  let app: A | undefined;
  const server = createAdaptorServer({
    fetch: (request, env) => {
      if (app === undefined) return new Response(null, { status: 503 });
      return app.fetch(request, env as HttpBindings);
    },
  }) as Server;
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

import { createServer, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A pass-through HTTP proxy in front of mock-anthropic that keeps one header of every request. The mock
 * redacts credentials in its recordings (rightly), so a test that must see which credential Claude Code
 * sent puts this in between and reads it here, in memory, never in a log.
 */
export interface HeaderRecordingProxy {
  readonly url: string;
  /** The recorded header of each request, in arrival order; undefined when a request had none. */
  readonly values: readonly (string | undefined)[];
  close(): Promise<void>;
}

export async function startHeaderRecordingProxy(target: string, header: string): Promise<HeaderRecordingProxy> {
  const upstream = new URL(target);
  const values: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    const value = req.headers[header.toLowerCase()];
    values.push(Array.isArray(value) ? value.join(', ') : value);
    const outbound = forward(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    outbound.on('error', () => res.destroy());
    res.on('close', () => outbound.destroy());
    req.pipe(outbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    values,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { HostClient } from '@outrigger/host-api';
import { createOutriggerAgent } from './agent/outriggerAgent.ts';
import type { HostEndpoint } from './hostLink/hostEndpoint.ts';

/*
 * The ACP agent on this process's stdio (the editor's pipe: stdout carries only the protocol, diagnostics go
 * to stderr), until the editor closes it. The host and its sessions go on.
 */
export async function serveAcpOnStdio(options: {
  readonly endpoint: HostEndpoint;
  readonly version: string;
  readonly log: (line: string) => void;
}): Promise<void> {
  const host = new HostClient({ baseUrl: options.endpoint.baseUrl, fetch: options.endpoint.fetch });
  const app = createOutriggerAgent({ host, version: options.version, log: options.log });
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  await app.connect(stream).closed;
}

import { type ChildProcess, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import {
  type ClientConnection,
  client,
  methods,
  ndJsonStream,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from '@agentclientprotocol/sdk';
import { HostClient } from '@outrigger/host-api';
import { TEST_MARK_VARIABLE } from '../../host/test/harness/processes.ts';

const CLI = fileURLToPath(new URL('../../../bin/outrigger.ts', import.meta.url));

/** What the editor does with a permission request: the options it was offered, and how it ended. */
export type PermissionPolicy = (
  request: RequestPermissionRequest,
  signal: AbortSignal,
) => Promise<RequestPermissionResponse>;

/** `outrigger acp` as an editor runs it: a child process, with the SDK's client app on its stdio. */
export interface AcpProcess {
  readonly child: ChildProcess;
  readonly connection: ClientConnection;
  /** Every `session/update` received, in order. */
  readonly updates: SessionNotification[];
  readonly permissions: RequestPermissionRequest[];
  stderr(): string;
  /** SIGKILL, as an editor that crashed. */
  kill(): Promise<void>;
}

export function startAcp(options: {
  dataDir: string;
  env: Record<string, string>;
  mark: string;
  permission: () => PermissionPolicy;
}): AcpProcess {
  const child = spawn(process.execPath, [CLI, 'acp', '--data-dir', options.dataDir], {
    env: { ...options.env, [TEST_MARK_VARIABLE]: options.mark },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const updates: SessionNotification[] = [];
  const permissions: RequestPermissionRequest[] = [];
  const app = client({ name: 'acp-test-editor' })
    .onNotification(methods.client.session.update, ({ params }) => {
      updates.push(params);
    })
    .onRequest(methods.client.session.requestPermission, ({ params, signal }) => {
      permissions.push(params);
      return options.permission()(params, signal);
    });
  const connection = app.connect(
    ndJsonStream(
      Writable.toWeb(child.stdin as Writable) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout as Readable) as ReadableStream<Uint8Array>,
    ),
  );
  return {
    child,
    connection,
    updates,
    permissions,
    stderr: () => stderr,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The host the acp process found or started, through its lock file and token, as the browser would reach it. */
export async function hostOf(dataDir: string): Promise<{ client: HostClient; pid: number }> {
  const lock = JSON.parse(await readFile(join(dataDir, 'host.json'), 'utf8')) as { pid: number; baseUrl: string };
  const token = (await readFile(join(dataDir, 'token'), 'utf8')).trim();
  return { client: new HostClient({ baseUrl: lock.baseUrl, token }), pid: lock.pid };
}

/** Picks the first option of the kind, as a person clicking it. */
export function pick(kind: 'allow_once' | 'allow_always' | 'reject_once'): PermissionPolicy {
  return async (request) => {
    const option = request.options.find((candidate) => candidate.kind === kind);
    if (option === undefined) throw new Error(`no ${kind} option in ${JSON.stringify(request.options)}`);
    return { outcome: { outcome: 'selected', optionId: option.optionId } };
  };
}

import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type HostInfo, hostLimits } from '@outrigger/host-api';
import packageJson from '../../../package.json' with { type: 'json' };
import { DEFAULT_PORT_TRIES } from './config/serveOptions.ts';
import { loadOrCreateToken } from './config/tokenFile.ts';
import { createHostApp } from './http/hostApp.ts';
import { type ListeningServer, listenHost, PortInUseError } from './http/httpServer.ts';
import { errorName } from './logging/errorName.ts';
import { createFileAndStderrLogger, type HostLogger, isLogLevel } from './logging/hostLogger.ts';
import { pinoShaped } from './logging/pinoShaped.ts';
import type { HostService } from './service/hostService.ts';
import type { ServiceFactory } from './service/serviceFactory.ts';

/** `packages/web/dist`: the built web UI. */
export const WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));

export interface StartHostOptions {
  readonly dataDir: string;
  readonly host?: string;
  /** 0: any free port. */
  readonly port?: number;
  /** Try the next ports when `port` is taken. */
  readonly portFallback?: boolean;
  readonly allowRoots?: readonly string[];
  readonly toolTimeoutMs?: number;
  readonly sidecarEnv: Readonly<Record<string, string | undefined>>;
  readonly modelBackend: { readonly kind: 'demo' | 'anthropic'; readonly reason: string };
  /** Default: the real core (`hostCore.ts`: store, event hub, projection, sidecar supervisor, sessions). */
  readonly createService?: ServiceFactory;
  /** Default: `DATA/logs/host.log` and stderr (warnings up), levels from `OUTRIGGER_LOG_LEVEL`. */
  readonly logger?: HostLogger;
  readonly webDist?: string;
  readonly heartbeatMs?: number;
  readonly validateResponses?: boolean;
}

export interface RunningHost {
  /** What a person opens: `http://127.0.0.1:PORT/?token=…`. */
  readonly url: string;
  /** `http://127.0.0.1:PORT`, for API clients (with the token as a bearer). */
  readonly baseUrl: string;
  readonly port: number;
  readonly token: string;
  readonly tokenFile: string;
  readonly dataDir: string;
  readonly info: HostInfo;
  readonly service: HostService;
  readonly logger: HostLogger;
  /** Stops taking requests, closes the core (every stream ends, the sidecar and its children are reaped), then the log. */
  close(): Promise<void>;
}

/** Credentials the log must never show, whatever field they end up in. */
const SECRET_VARIABLES = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'] as const;

/** Starts the host: token, log, core, then the HTTP server on the first port that is free. */
export async function startHost(options: StartHostOptions): Promise<RunningHost> {
  const dataDir = options.dataDir;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const tokenFile = join(dataDir, 'token');
  const { token } = await loadOrCreateToken(tokenFile);
  const level = process.env.OUTRIGGER_LOG_LEVEL;
  const logger =
    options.logger ??
    createFileAndStderrLogger({
      dataDir,
      level: isLogLevel(level) ? level : 'info',
      stderrLevel: isLogLevel(level) ? level : 'warn',
    });
  logger.addSecret(token);
  for (const name of SECRET_VARIABLES) {
    for (const env of [process.env, options.sidecarEnv]) {
      const value = env[name];
      if (value !== undefined && value !== '') logger.addSecret(value);
    }
  }
  const allowRoots = [...(options.allowRoots ?? [])];
  const defaultCwd = allowRoots[0] ?? join(dataDir, 'workspace');
  await mkdir(defaultCwd, { recursive: true });
  const info: HostInfo = {
    version: packageJson.version,
    modelBackend: options.modelBackend.kind,
    modelBackendReason: options.modelBackend.reason,
    defaultCwd,
    allowRoots,
    limits: { ...hostLimits },
  };
  const createService = options.createService ?? (await import('./hostCore.ts')).createHostService;
  const service = await createService({
    dataDir,
    databasePath: join(dataDir, 'host.db'),
    sidecarEnv: options.sidecarEnv,
    allowRoots,
    defaultCwd,
    toolTimeoutMs: options.toolTimeoutMs,
    info,
    logger,
    runtimeLogger: pinoShaped(logger),
  });
  const host = options.host ?? '127.0.0.1';
  let listening: ListeningServer;
  try {
    listening = await listenOnFreePort(host, options.port ?? 0, options.portFallback === true, (port) =>
      createHostApp({
        service,
        logger,
        security: { token, port, boundHost: host },
        webDist: options.webDist ?? WEB_DIST,
        heartbeatMs: options.heartbeatMs,
        validateResponses: options.validateResponses,
      }),
    );
  } catch (error) {
    await service.close().catch(() => undefined);
    logger.close();
    throw error;
  }
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const baseUrl = `http://${urlHost}:${listening.port}`;
  logger.info('host.started', {
    version: info.version,
    host,
    port: listening.port,
    dataDir,
    modelBackend: info.modelBackend,
    pid: process.pid,
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      logger.info('host.stopping', { port: listening.port });
      const serverClosed = listening.close();
      try {
        await service.close();
      } catch (error) {
        logger.error('host.close_failed', { errorName: errorName(error) });
      }
      await serverClosed;
      logger.info('host.stopped', { port: listening.port });
      logger.close();
    })();
    return closing;
  };
  return {
    url: `${baseUrl}/?token=${token}`,
    baseUrl,
    port: listening.port,
    token,
    tokenFile,
    dataDir,
    info,
    service,
    logger,
    close,
  };
}

async function listenOnFreePort(
  host: string,
  port: number,
  fallback: boolean,
  build: Parameters<typeof listenHost>[2],
): Promise<ListeningServer> {
  const tries = fallback && port !== 0 ? DEFAULT_PORT_TRIES : 1;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await listenHost(host, port + attempt, build);
    } catch (error) {
      if (!(error instanceof PortInUseError) || attempt + 1 >= tries) {
        if (error instanceof PortInUseError && tries > 1) {
          throw new PortInUseError(host, port, `ports ${port}-${port + tries - 1} on ${host} are all in use`);
        }
        throw error;
      }
    }
  }
}

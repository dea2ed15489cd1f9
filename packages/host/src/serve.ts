import { mkdir, readFile } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type HostInfo, hostLimits } from '@outrigger/host-api';
import packageJson from '../../../package.json' with { type: 'json' };
import {
  type DataDirPrivacy,
  narrowDataDir,
  PRIVATE_DIR_MODE,
  preparePrivateDatabase,
} from './config/dataDirPrivacy.ts';
import { acquireHostLock, type HostLock } from './config/hostLock.ts';
import { DEFAULT_PORT_TRIES, isLoopbackHost, remoteRefusal } from './config/serveOptions.ts';
import { loadOrCreateToken, watchToken } from './config/tokenFile.ts';
import { createHostApp } from './http/hostApp.ts';
import { type ListeningServer, type ListenOptions, listenHost, PortInUseError } from './http/httpServer.ts';
import type { SecurityOptions } from './http/security.ts';
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
  /** Where a new session starts when its request names none (kept only inside the roots). Default: the first root, else `DATA/workspace`. */
  readonly defaultCwd?: string;
  readonly toolTimeoutMs?: number;
  readonly sidecarEnv: Readonly<Record<string, string | undefined>>;
  /** The sidecar script to run; default: the sidecar package's built entry. */
  readonly sidecarEntry?: string;
  readonly modelBackend: { readonly kind: 'demo' | 'anthropic'; readonly reason: string };
  /** Default: the real core (`hostCore.ts`: store, event hub, projection, sidecar supervisor, sessions). */
  readonly createService?: ServiceFactory;
  /** Default: `DATA/logs/host.log` and stderr (warnings up), levels from `OUTRIGGER_LOG_LEVEL`. */
  readonly logger?: HostLogger;
  readonly webDist?: string;
  readonly heartbeatMs?: number;
  readonly validateResponses?: boolean;
  /** PEM files: serve HTTPS (and mark the cookie Secure). */
  readonly tls?: { readonly certFile: string; readonly keyFile: string };
  /** Listen on a non-loopback address over plain HTTP anyway (refused otherwise). */
  readonly insecureRemote?: boolean;
  /** The HTTP server's limits (`listenHost`'s defaults otherwise); tests shorten them. */
  readonly limits?: Omit<ListenOptions, 'tls'>;
}

export interface RunningHost {
  /** What a person opens: `http://127.0.0.1:PORT/?token=…` (https with TLS), with the current token. */
  readonly url: string;
  /** `http://127.0.0.1:PORT`, for API clients (with the token as a bearer). */
  readonly baseUrl: string;
  readonly port: number;
  /** The current token: `outrigger token rotate` replaces it while the host runs. */
  readonly token: string;
  readonly tokenFile: string;
  readonly dataDir: string;
  /** What the start narrowed in the data directory (for the terminal to say so). */
  readonly privacy: DataDirPrivacy;
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
  const host = options.host ?? '127.0.0.1';
  // Before anything is created: a refused start must leave nothing behind.
  if (!isLoopbackHost(host) && options.tls === undefined && options.insecureRemote !== true) {
    throw new Error(remoteRefusal(host));
  }
  const tls = options.tls === undefined ? undefined : await readTls(options.tls);
  const allowRoots = [...(options.allowRoots ?? [])];
  const workspace = join(dataDir, 'workspace');
  const defaultCwd = chooseDefaultCwd(options.defaultCwd, allowRoots) ?? workspace;
  // Every prompt ends up in here (the database, the demo model's transcripts): owner only, at every start,
  // since a directory made earlier by something else (or by an older version) may be open to everyone.
  const privacy = await narrowDataDir(dataDir, [defaultCwd]);
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
  if (privacy.narrowed.length > 0) {
    logger.warn('host.data_dir_narrowed', {
      dataDir,
      reason: privacy.dirWasOpen
        ? 'the data directory was open to other users and has been narrowed to 0700'
        : 'files in the data directory were open to other users and have been narrowed',
      count: privacy.narrowed.length,
      narrowedPaths: privacy.narrowed.slice(0, 20).map((path) => relative(dataDir, path) || '.'),
    });
  }
  if (!isLoopbackHost(host) && tls === undefined) {
    logger.warn('host.insecure_remote', {
      host,
      reason: 'plain HTTP on a non-loopback address: the token and the cookie cross the network in clear text',
    });
  }
  // The default workspace is the host's own, so owner only like the rest; an --allow-root is the user's.
  await mkdir(defaultCwd, { recursive: true, ...(defaultCwd === workspace ? { mode: PRIVATE_DIR_MODE } : {}) });
  const databasePath = join(dataDir, 'host.db');
  // One host per data directory (they would share one store); the lock also tells clients where it listens.
  let lock: HostLock;
  try {
    lock = await acquireHostLock(dataDir);
  } catch (error) {
    logger.close();
    throw error;
  }
  try {
    await preparePrivateDatabase(databasePath);
  } catch (error) {
    await lock.release();
    logger.close();
    throw error;
  }
  const tokens = watchToken(tokenFile, token, {
    onChange: (next) => {
      logger.addSecret(next);
      logger.info('host.token_rotated', { file: tokenFile });
    },
    onInvalid: (reason) => logger.warn('host.token_file_unusable', { file: tokenFile, reason }),
  });
  const info: HostInfo = {
    version: packageJson.version,
    modelBackend: options.modelBackend.kind,
    modelBackendReason: options.modelBackend.reason,
    defaultCwd,
    allowRoots,
    limits: { ...hostLimits },
  };
  const createService = options.createService ?? (await import('./hostCore.ts')).createHostService;
  let service: HostService;
  try {
    service = await createService({
      dataDir,
      databasePath,
      sidecarEnv: options.sidecarEnv,
      ...(options.sidecarEntry === undefined ? {} : { sidecarEntry: options.sidecarEntry }),
      allowRoots,
      defaultCwd,
      toolTimeoutMs: options.toolTimeoutMs,
      info,
      logger,
      runtimeLogger: pinoShaped(logger),
    });
  } catch (error) {
    tokens.close();
    await lock.release();
    logger.close();
    throw error;
  }
  let listening: ListeningServer;
  try {
    // The store has written by now (migrations), so SQLite's -wal and -shm exist: check they came out 0600.
    await preparePrivateDatabase(databasePath);
    const listenOptions: ListenOptions = { ...options.limits, ...(tls === undefined ? {} : { tls }) };
    listening = await listenOnFreePort(
      host,
      options.port ?? 0,
      options.portFallback === true,
      (port) => {
        const security: SecurityOptions = {
          token: () => tokens.current(),
          port,
          boundHost: host,
          secureCookie: tls !== undefined,
        };
        return createHostApp({
          service,
          logger,
          security,
          webDist: options.webDist ?? WEB_DIST,
          heartbeatMs: options.heartbeatMs,
          validateResponses: options.validateResponses,
        });
      },
      listenOptions,
    );
  } catch (error) {
    tokens.close();
    await service.close().catch(() => undefined);
    await lock.release();
    logger.close();
    throw error;
  }
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const baseUrl = `${tls === undefined ? 'http' : 'https'}://${urlHost}:${listening.port}`;
  try {
    await lock.announce(baseUrl);
  } catch (error) {
    tokens.close();
    await listening.close();
    await service.close().catch(() => undefined);
    await lock.release();
    logger.close();
    throw error;
  }
  logger.info('host.started', {
    version: info.version,
    host,
    port: listening.port,
    dataDir,
    modelBackend: info.modelBackend,
    tls: tls !== undefined,
    pid: process.pid,
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      logger.info('host.stopping', { port: listening.port });
      tokens.close();
      const serverClosed = listening.close();
      try {
        await service.close();
      } catch (error) {
        logger.error('host.close_failed', { errorName: errorName(error) });
      }
      await serverClosed;
      await lock.release();
      logger.info('host.stopped', { port: listening.port });
      logger.close();
    })();
    return closing;
  };
  return {
    get url() {
      return `${baseUrl}/?token=${tokens.current()}`;
    },
    baseUrl,
    port: listening.port,
    get token() {
      return tokens.current();
    },
    tokenFile,
    dataDir,
    privacy,
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
  listenOptions: ListenOptions,
): Promise<ListeningServer> {
  const tries = fallback && port !== 0 ? DEFAULT_PORT_TRIES : 1;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await listenHost(host, port + attempt, build, listenOptions);
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

/** Reads the PEM files named by `--tls-cert` / `--tls-key`, saying which one failed. */
async function readTls(files: { certFile: string; keyFile: string }): Promise<{ cert: Buffer; key: Buffer }> {
  const read = async (flag: string, path: string) => {
    try {
      return await readFile(path);
    } catch (error) {
      throw new Error(`${flag} ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  };
  return { cert: await read('--tls-cert', files.certFile), key: await read('--tls-key', files.keyFile) };
}

/** The given directory when the roots allow it, else the first root; undefined: the host's own workspace. */
function chooseDefaultCwd(given: string | undefined, allowRoots: readonly string[]): string | undefined {
  const inside = (root: string) => {
    if (given === undefined) return false;
    const path = relative(root, given);
    return path === '' || (!path.startsWith('..') && !isAbsolute(path));
  };
  if (given !== undefined && (allowRoots.length === 0 || allowRoots.some(inside))) return given;
  return allowRoots[0];
}

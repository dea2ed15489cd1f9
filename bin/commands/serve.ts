import { styleText } from 'node:util';
import { isLoopbackHost, PortInUseError, parseServeArgs, SERVE_USAGE, startHost } from '@outrigger/host';
import { PACKAGE_LAYOUT } from '../packageLayout.ts';
import { errorText } from './errorText.ts';
import { openModelBackend } from './modelBackend.ts';

/** `outrigger serve`: the host in the foreground until Ctrl-C or SIGTERM. */
export async function runServeCommand(argv: string[]): Promise<void> {
  const parsed = parseServeArgs(argv);
  if (parsed.kind === 'help') {
    process.stdout.write(SERVE_USAGE);
    return;
  }
  if (parsed.kind === 'error') {
    process.stderr.write(`outrigger serve: ${parsed.message}\n\n${SERVE_USAGE}`);
    process.exitCode = 2;
    return;
  }
  const { options } = parsed;
  const { stdout } = process;
  // A terminal that went away (closed, or `| tee` stopped by the same Ctrl-C) fails every later write with
  // EPIPE. That is no error of the host: without a listener each failed write would be an uncaught exception,
  // and logging it (to stderr too) another one, forever. The host goes on, and stops, without its terminal.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
  // Listening for Ctrl-C / SIGTERM before anything starts: a signal that comes early (even right after the URL
  // was printed) still closes what was started instead of killing the process around it.
  let requestStop!: () => void;
  const stopRequested = new Promise<void>((resolve) => {
    requestStop = resolve;
  });
  const forceExit = () => {
    process.stderr.write('outrigger serve: stopping without waiting\n');
    process.exit(130);
  };
  const onSignal = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // A second Ctrl-C while the sessions close: stop waiting.
    process.once('SIGINT', forceExit);
    requestStop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const backend = await openModelBackend({ processEnv: process.env, dataDir: options.dataDir });
  try {
    const demo = backend.kind === 'demo';
    stdout.write(`${demo ? styleText(['bold', 'yellow'], backend.headline, { stream: stdout }) : backend.headline}\n`);
    for (const line of backend.notice) stdout.write(`${line}\n`);
    let host: Awaited<ReturnType<typeof startHost>>;
    try {
      host = await startHost({
        ...options,
        ...PACKAGE_LAYOUT,
        sidecarEnv: backend.sidecarEnv,
        modelBackend: { kind: backend.kind, reason: backend.reason },
      });
    } catch (error) {
      const hint = error instanceof PortInUseError ? ' (pass --port N, or --port 0 for any free port)' : '';
      process.stderr.write(`outrigger serve: ${errorText(error)}${hint}\n`);
      process.exitCode = 1;
      return;
    }
    if (host.privacy.dirWasOpen) {
      stdout.write(`The data directory ${host.dataDir} was open to other users; it is now owner-only (0700).\n`);
    }
    if (host.privacy.narrowed.length > (host.privacy.dirWasOpen ? 1 : 0)) {
      stdout.write(`Narrowed ${host.privacy.narrowed.length} entries in the data directory to owner-only.\n`);
    }
    if (!isLoopbackHost(options.host)) {
      if (options.tls === undefined) {
        const warning = [
          `WARNING: listening on ${options.host} over plain HTTP (--insecure-remote).`,
          'The token and the session cookie cross the network in clear text: anyone on the path can take over',
          'the host. Prefer --tls-cert/--tls-key, or SSH forwarding to a loopback host.',
        ].join('\n');
        process.stderr.write(`${styleText(['bold', 'red'], warning, { stream: process.stderr })}\n`);
      } else {
        stdout.write(`Listening on ${options.host} over HTTPS: reachable from the network (with the token).\n`);
      }
    }
    // One write: a reader that acts on the URL has the data directory line too.
    stdout.write(
      `\nOutrigger is running. Open:\n\n  ${styleText('bold', host.url, { stream: stdout })}\n\n` +
        `Data in ${host.dataDir}; logs in ${host.dataDir}/logs/host.log. Ctrl-C stops it.\n`,
    );
    // A bug must leave its trace in the log (name and stack frames only: a message may quote input). A
    // rejected promise nobody awaited is logged and the host goes on; an uncaught exception stops it.
    const frames = (error: unknown) => ({
      errorName: error instanceof Error ? error.name : typeof error,
      stack: error instanceof Error ? error.stack?.split('\n').slice(1, 12).join('\n') : undefined,
    });
    process.on('unhandledRejection', (reason) => host.logger.error('host.unhandled_rejection', frames(reason)));
    let failed = false;
    process.on('uncaughtException', (error) => {
      // Once: whatever fails while the host closes after the first must not start another close (or loop).
      if (failed) return;
      failed = true;
      host.logger.error('host.uncaught_exception', frames(error));
      process.stderr.write('outrigger serve: stopping after an unexpected error (see the log)\n');
      process.exitCode = 1;
      void host.close().finally(() => process.exit(1));
    });
    await stopRequested;
    stdout.write('Stopping: closing sessions and the sidecar…\n');
    await host.close();
    stdout.write('Stopped.\n');
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await backend.close();
  }
}

import { spawn } from 'node:child_process';

/*
 * Preloaded into a sidecar (NODE_OPTIONS=--import) by sidecarProcess.test.ts. It starts a grandchild in
 * the sidecar's process group, the way the SDK starts Claude Code, and reports its pid as a diagnostic.
 * SIDECAR_FIXTURE_EXIT makes the sidecar linger after a clean shutdown (`linger`), as if closing its
 * sessions took long, or never exit by itself at all (`never`). SIGHUP makes it stop reading stdin (so a
 * request stays unanswered); SIGUSR2 makes it crash the way a bug would: an uncaught exception, its stack
 * trace on stderr, exit code 1.
 */

const grandchild = spawn('sleep', ['120'], { stdio: 'ignore' });
grandchild.unref();
process.stderr.write(`FIXTURE_GRANDCHILD ${JSON.stringify({ pid: grandchild.pid })}\n`);

const exitMode = process.env.SIDECAR_FIXTURE_EXIT;
if (exitMode === 'linger' || exitMode === 'never') {
  const exit = process.exit.bind(process);
  process.exit = ((code?: number | string | null) => {
    if (exitMode === 'linger' && code !== 0) return exit(code);
    process.stderr.write(`FIXTURE_EXIT_HELD ${JSON.stringify({ code: code ?? null })}\n`);
    setInterval(() => undefined, 60_000);
    return undefined as never;
  }) as typeof process.exit;
}

process.on('SIGHUP', () => {
  process.stdin.pause();
  // A paused stdin no longer keeps the process alive.
  setInterval(() => undefined, 60_000);
  process.stderr.write(`FIXTURE_STDIN_PAUSED ${JSON.stringify({})}\n`);
});

process.on('SIGUSR2', () => {
  process.stderr.write('fixture: about to crash\n');
  throw new Error('fixture crash on SIGUSR2');
});

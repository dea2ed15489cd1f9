import { spawn } from 'node:child_process';

/**
 * Preloaded into a test sidecar (NODE_OPTIONS=--import): starts a process in a group of its own, the way
 * Claude Code runs a tool, so it escapes the sidecar's process group, and reports its pid on stderr.
 */
const escaped = spawn('sleep', ['120'], { detached: true, stdio: 'ignore' });
escaped.unref();
process.stderr.write(`FIXTURE_ESCAPED ${JSON.stringify({ pid: escaped.pid })}\n`);

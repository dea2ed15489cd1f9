#!/usr/bin/env node
import { constants } from 'node:os';
import { createStdioLineTransport } from '@outrigger/protocol';
import { loadClaudeAgentSdk } from './config/claudeAgentSdk.ts';
import { forkHandlers } from './server/forkHandlers.ts';
import { createSessionFactory } from './server/sessionFactory.ts';
import { startSidecarServer } from './server/sidecarServer.ts';
import { isTestDriverEnabled } from './testDriver/testDriverSession.ts';

const server = startSidecarServer({
  transport: createStdioLineTransport({ input: process.stdin, output: process.stdout, coalesceWrites: true }),
  createSession: createSessionFactory(process.env),
  stateless: forkHandlers,
});

// Every real session needs the SDK, so it loads while the host is still on its way to the first `start`
// (a failure to load is that start's error). A test-driver sidecar never loads it.
if (!isTestDriverEnabled(process.env)) loadClaudeAgentSdk().catch(() => undefined);

// A signal ends the input, so the server closes every session exactly as on EOF. Once the input has
// ended, by EOF or a first signal, another signal means "now": the closing sessions are abandoned.
let inputEnded = false;
process.stdin.once('end', () => {
  inputEnded = true;
});
const onSignal = (signal: NodeJS.Signals): void => {
  if (inputEnded) process.exit(128 + constants.signals[signal]);
  inputEnded = true;
  process.stdin.destroy();
};
process.on('SIGTERM', onSignal);
process.on('SIGINT', onSignal);

await server.done;
process.exit(0);

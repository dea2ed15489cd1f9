#!/usr/bin/env node
import { constants } from 'node:os';
import { createStdioLineTransport } from '@outrigger/protocol';
import { forkHandlers } from './server/forkHandlers.ts';
import { createSessionFactory } from './server/sessionFactory.ts';
import { startSidecarServer } from './server/sidecarServer.ts';

const server = startSidecarServer({
  transport: createStdioLineTransport({ input: process.stdin, output: process.stdout }),
  createSession: createSessionFactory(process.env),
  stateless: forkHandlers,
});

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

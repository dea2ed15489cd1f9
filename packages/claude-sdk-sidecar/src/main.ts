#!/usr/bin/env node
import { createStdioLineTransport } from '@outrigger/protocol';
import { forkHandlers } from './server/forkHandlers.ts';
import { createSessionFactory } from './server/sessionFactory.ts';
import { startSidecarServer } from './server/sidecarServer.ts';

const server = startSidecarServer({
  transport: createStdioLineTransport({ input: process.stdin, output: process.stdout }),
  createSession: createSessionFactory(process.env),
  stateless: forkHandlers,
});
await server.done;
process.exit(0);

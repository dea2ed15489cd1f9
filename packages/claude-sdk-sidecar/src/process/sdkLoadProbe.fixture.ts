import { registerHooks } from 'node:module';

/*
 * Preloaded into a sidecar (NODE_OPTIONS=--import) by sidecarProcess.test.ts: reports on stderr when the
 * sidecar imports the Claude Agent SDK, statically or dynamically.
 */

const SDK = '@anthropic-ai/claude-agent-sdk';

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === SDK) process.stderr.write(`FIXTURE_SDK_IMPORTED ${JSON.stringify({ specifier })}\n`);
    return nextResolve(specifier, context);
  },
});

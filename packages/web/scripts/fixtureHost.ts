import { fileURLToPath } from 'node:url';
import { startFixtureHost } from '../test/fixtureHost/fixtureHost.ts';

/** `node scripts/fixtureHost.ts [port]`: the built UI against the scripted fixture host, for looking at it. */
const host = await startFixtureHost({
  distDir: fileURLToPath(new URL('../dist', import.meta.url)),
  port: Number(process.argv[2] ?? 5178),
});
process.stdout.write(`fixture host: ${host.url}\n`);

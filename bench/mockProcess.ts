import { createInterface } from 'node:readline';
import { startBenchMock } from './benchModel.ts';

/*
 * mock-anthropic with the bench scenario in a process of its own (see benchModel.ts): it writes
 * `{"url": …}` once it listens and `{"unmatched": n}` when its stdin ends, then exits.
 */
const mock = await startBenchMock();
process.stdout.write(`${JSON.stringify({ url: mock.url })}\n`);
createInterface({ input: process.stdin }).on('close', async () => {
  process.stdout.write(`${JSON.stringify({ unmatched: mock.unmatched.length })}\n`);
  await mock.close();
  process.exit(0);
});

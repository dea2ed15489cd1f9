import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launchChromium } from '../test/browser/chromium.ts';
import { startFixtureHost } from '../test/fixtureHost/fixtureHost.ts';

/**
 * `node scripts/screenshots.ts`: drives the built UI against the fixture host through the main
 * screens and saves screenshots in both themes, at 375 px and wide, to `test-output/screens/`.
 */
const out = fileURLToPath(new URL('../test-output/screens/', import.meta.url));
mkdirSync(out, { recursive: true });
const host = await startFixtureHost({ distDir: fileURLToPath(new URL('../dist', import.meta.url)), speed: 0.15 });
const browser = await launchChromium();
try {
  const setup = await browser.newPage();
  await setup.goto(host.url);
  const create = async (title: string) => {
    const response = await setup.request.post(`${host.url}/api/sessions`, { data: { cwd: '/work/project', title } });
    return ((await response.json()) as { id: string }).id;
  };
  const send = (id: string, prompt: string, mode?: string) =>
    setup.request.post(`${host.url}/api/sessions/${id}/turns`, { data: { prompt, ...(mode ? { mode } : {}) } });
  const settled = (ms = 1500) => new Promise((resolve) => setTimeout(resolve, ms));

  const rich = await create('Tour of the features');
  for (const prompt of [
    'markdown please',
    'make a plan',
    'edit the greeting',
    'explore with an agent',
    'think first',
    'show test output',
  ]) {
    await send(rich, prompt);
    await settled(2500);
  }
  await send(rich, 'run a command');
  await settled();
  const asking = await create('Needs a decision');
  await send(asking, 'ask me a question');
  const empty = await create('Fresh session');
  const failing = await create('Broken key');
  await send(failing, 'fail please');
  await settled(2000);

  const shots: [string, string][] = [
    ['rich', `#/s/${rich}`],
    ['question', `#/s/${asking}`],
    ['empty-demo', `#/s/${empty}`],
    ['failed', `#/s/${failing}`],
    ['inbox', '#/inbox'],
  ];
  for (const theme of ['light', 'dark'] as const) {
    for (const [width, height, label] of [
      [1440, 900, 'wide'],
      [375, 812, 'phone'],
    ] as const) {
      const context = await browser.newContext({ viewport: { width, height }, colorScheme: theme });
      const page: Page = await context.newPage();
      for (const [name, hash] of shots) {
        await page.goto(`${host.url}/${hash}`);
        await page.waitForSelector('.app');
        await settled(900);
        await page.screenshot({ path: `${out}${name}-${label}-${theme}.png` });
      }
      await context.close();
    }
  }
  process.stdout.write(`screenshots in ${out}\n`);
} finally {
  await browser.close();
  await host.close();
}

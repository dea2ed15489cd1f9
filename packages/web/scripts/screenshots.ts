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
  const create = async (title: string, options: { cwd?: string; worktree?: boolean } = {}) => {
    const response = await setup.request.post(`${host.url}/api/sessions`, {
      data: { cwd: options.cwd ?? '/work/project', title, ...(options.worktree ? { worktree: true } : {}) },
    });
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
  // Review and undo: a turn that changed files (its edit allowed up front), and a session in a worktree.
  const review = await create('Review the changes', { cwd: '/work/shots-review' });
  const worktree = await create('Fix in a worktree', { cwd: '/work/shots-worktree', worktree: true });
  for (const id of [review, worktree]) {
    host.sessions.get(id)!.allowedForSession.add('Edit');
    await send(id, 'edit the greeting');
  }
  await settled(2000);

  const openPanel = async (page: Page) => {
    const toggle = page.getByRole('button', { name: 'Show tasks and changes' });
    if (await toggle.isVisible()) await toggle.click();
  };
  const shots: [string, string, ((page: Page) => Promise<void>)?][] = [
    ['rich', `#/s/${rich}`],
    ['question', `#/s/${asking}`],
    ['empty-demo', `#/s/${empty}`],
    ['failed', `#/s/${failing}`],
    ['inbox', '#/inbox'],
    [
      'turn-diff',
      `#/s/${review}`,
      async (page) => {
        await page.locator('.turn-changes-toggle').click();
        await page
          .getByRole('list', { name: 'Files this turn changed' })
          .getByRole('button', { name: /src\/greet/ })
          .click();
        await page.locator('.turn-changes .hunk-range').nth(2).waitFor();
      },
    ],
    [
      'rewind-dialog',
      `#/s/${review}`,
      async (page) => {
        await page.getByRole('button', { name: 'Rewind…' }).click();
        await page.getByRole('list', { name: 'Files the rewind will change' }).waitFor();
      },
    ],
    [
      'file-diff-dialog',
      `#/s/${review}`,
      async (page) => {
        await openPanel(page);
        await page
          .getByRole('list', { name: 'Files changed in this session' })
          .getByRole('button', { name: /src\/greet/ })
          .click();
        await page.getByRole('dialog').locator('.hunk-range').nth(2).waitFor();
      },
    ],
    ['worktree', `#/s/${worktree}`, openPanel],
    [
      'new-session-worktree',
      `#/s/${empty}`,
      async (page) => {
        const drawer = page.getByRole('button', { name: 'Open the session list' });
        if (await drawer.isVisible()) await drawer.click();
        await page.getByRole('button', { name: 'New session' }).click();
        const dialog = page.getByRole('dialog', { name: 'New session' });
        await dialog.getByRole('textbox', { name: 'Working directory' }).fill('/tmp/scratch');
        await dialog.getByRole('checkbox', { name: 'Run in a new git worktree' }).check();
        await dialog.getByRole('button', { name: 'Create session' }).click();
        await dialog.locator('#new-session-worktree-error').waitFor();
      },
    ],
  ];
  for (const theme of ['light', 'dark'] as const) {
    for (const [width, height, label] of [
      [1440, 900, 'wide'],
      [375, 812, 'phone'],
    ] as const) {
      const context = await browser.newContext({ viewport: { width, height }, colorScheme: theme });
      const page: Page = await context.newPage();
      for (const [name, hash, prepare] of shots) {
        // A fresh page per shot: a change of hash alone would keep the last shot's open dialog.
        await page.goto('about:blank');
        await page.goto(`${host.url}/${hash}`);
        await page.waitForSelector('.app');
        await settled(900);
        await prepare?.(page);
        await settled(300);
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

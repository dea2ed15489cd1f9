import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { HostClient } from '@outrigger/host-api';
import {
  demoScenario,
  type MockAnthropic,
  type ScenarioInput,
  type ScenarioRuleInput,
} from '@outrigger/mock-anthropic';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildWeb } from '../../scripts/build.ts';
import { launchChromium } from '../browser/chromium.ts';
import { outputDir, seriousViolations } from '../browser/uiHarness.ts';

/*
 * The UI in Chromium against the real host, its sidecar and Claude Code, with mock-anthropic as the
 * model (the demo scenario plus a Read → Edit script). One host, one session per test, each closed at
 * its end so no more than one or two Claude Code processes run at once.
 *
 * It starts the host with the host package's own test harness, imported at run time: the web's
 * typecheck (DOM library, bundler resolution) cannot check the host's sources, so the few harness
 * types it uses are restated below. Without `packages/host` the suite is skipped, saying so.
 */

const harnessPath = fileURLToPath(new URL('../../../host/test/harness/testHost.ts', import.meta.url));
const hostMissing = existsSync(harnessPath) ? false : 'packages/host and its test harness are not in this checkout';

/** What this suite uses of `packages/host/test/harness/testHost.ts`. */
interface TestHost {
  host: { baseUrl: string; token: string };
  client: HostClient;
  mock: MockAnthropic;
  close(): Promise<void>;
}
interface Harness {
  startTestHost(options: { scenario?: ScenarioInput; env?: Record<string, string> }): Promise<TestHost>;
  TODO_WRITE_ENV: Record<string, string>;
}

let workDir: string;
let host: TestHost;
let browser: Browser;

const greet = () => join(workDir, 'greet.ts');
const editRules = (): ScenarioRuleInput[] => [
  {
    name: 'edit: done',
    match: { userText: { regex: '\\bedit\\b' }, toolResult: 'Edit' },
    reply: { content: [{ type: 'text', text: 'Fixed the greeting.' }] },
  },
  {
    name: 'edit: change the file',
    match: { userText: { regex: '\\bedit\\b' }, toolResult: 'Read' },
    reply: {
      content: [
        {
          type: 'tool_use',
          name: 'Edit',
          input: { file_path: greet(), old_string: "greeting = 'Helo'", new_string: "greeting = 'Hello'" },
        },
      ],
      stopReason: 'tool_use',
    },
  },
  {
    name: 'edit: read the file first',
    match: { userText: { regex: '\\bedit\\b' } },
    reply: { content: [{ type: 'tool_use', name: 'Read', input: { file_path: greet() } }], stopReason: 'tool_use' },
  },
];

async function startAll(): Promise<void> {
  const { startTestHost, TODO_WRITE_ENV } = (await import(harnessPath)) as Harness;
  await buildWeb({ quiet: true });
  workDir = await mkdtemp(join(tmpdir(), 'outrigger-web-e2e-'));
  await writeFile(
    greet(),
    [
      "export const greeting = 'Helo';",
      '',
      'export function greet(name: string) {',
      "  return greeting + ', ' + name;",
      '}',
      '',
    ].join('\n'),
  );
  host = await startTestHost({
    scenario: { name: 'web e2e', rules: [...editRules(), ...demoScenario.rules] },
    env: TODO_WRITE_ENV,
  });
  browser = await launchChromium();
}

async function stopAll(): Promise<void> {
  await browser?.close();
  await host?.close();
  if (workDir !== undefined) await rm(workDir, { recursive: true, force: true });
}

interface Opened {
  id: string;
  context: BrowserContext;
  page: Page;
}

/** A session made through the API, opened in a signed-in browser context. */
async function openSession(
  title: string,
  options: { colorScheme?: 'light' | 'dark'; width?: number } = {},
): Promise<Opened> {
  const created = await host.client.call('createSession', { body: { cwd: workDir, title } });
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: 860 },
    colorScheme: options.colorScheme ?? 'light',
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => process.stderr.write(`page error: ${error.message}\n`));
  // The one page load that carries the token: the host sets its cookie and redirects without it.
  await page.goto(`${host.host.baseUrl}/?token=${encodeURIComponent(host.host.token)}#/s/${created.id}`);
  await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
  return { id: created.id, context, page };
}

async function finish(opened: Opened, shot: string): Promise<void> {
  await opened.page.screenshot({ path: `${outputDir}e2e-${shot}.png` });
  await opened.context.close();
  await host.client.call('closeSession', { params: { id: opened.id } });
}

const composer = (page: Page) => page.getByRole('textbox', { name: 'Message' });
async function send(page: Page, prompt: string): Promise<void> {
  await composer(page).fill(prompt);
  await composer(page).press('Enter');
}
const completed = (page: Page, index = 0) => page.locator('.outcome.completed').nth(index).waitFor({ timeout: 60_000 });
const rowsOfKind = (page: Page, kind: string) => page.locator(`.item[data-kind="${kind}"]`);

describe('the UI against the real host', { skip: hostMissing }, () => {
  before(startAll);
  after(stopAll);

  test('a streamed markdown answer', async () => {
    const opened = await openSession('Streamed');
    await send(opened.page, 'show me some markdown');
    await opened.page.locator('.streaming-caret').waitFor({ timeout: 60_000 });
    await completed(opened.page);
    await opened.page.getByRole('table').waitFor();
    assert.equal(await rowsOfKind(opened.page, 'user').count(), 1);
    await finish(opened, 'markdown');
  });

  test('the TodoWrite plan advances in the task panel next to a user task', async () => {
    const opened = await openSession('Plan');
    const { page } = opened;
    await page.getByRole('textbox', { name: 'New task' }).fill('Write the release notes');
    await page.getByRole('button', { name: 'Add task' }).click();
    await page.getByRole('checkbox', { name: 'Done: Write the release notes' }).waitFor();
    await send(page, 'make a plan');
    const progress = page.getByRole('progressbar', { name: 'Tasks done' });
    await progress.and(page.locator('[aria-valuemax="4"]')).waitFor({ timeout: 60_000 });
    await completed(page);
    await progress.and(page.locator('[aria-valuenow="3"]')).waitFor();
    assert.equal(await page.getByRole('checkbox', { name: 'Done: Write the release notes' }).isChecked(), false);
    await finish(opened, 'plan');
  });

  test('a permission allowed once, one allowed for the session (the next run asks nothing), one denied', async () => {
    const opened = await openSession('Permissions');
    const { page } = opened;
    await send(page, 'run a command');
    await page.getByRole('button', { name: 'Allow', exact: true }).click({ timeout: 60_000 });
    await page.getByText('Allowed once.').waitFor();
    await completed(page, 0);
    await send(page, 'run the command again');
    await page.getByRole('button', { name: 'Allow for this session' }).click({ timeout: 60_000 });
    await completed(page, 1);
    await send(page, 'run it a third time');
    await completed(page, 2);
    assert.equal(await page.locator('.prompt').count(), 0, 'the session rule answered the third run');
    await finish(opened, 'permissions');

    const denied = await openSession('Denied');
    await send(denied.page, 'run a command');
    await denied.page.getByRole('button', { name: 'Deny…' }).click({ timeout: 60_000 });
    await denied.page.getByRole('textbox', { name: 'Reason for denying' }).fill('not on this machine');
    await denied.page.getByRole('button', { name: 'Deny', exact: true }).click();
    await denied.page.getByText('the command did not run').waitFor({ timeout: 60_000 });
    await finish(denied, 'denied');
  });

  test('a question answered in the form reaches the model', async () => {
    const opened = await openSession('Question');
    const { page } = opened;
    await send(page, 'ask me a question');
    await page.getByRole('radio', { name: /PostgreSQL/ }).check({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Send answer' }).click();
    await page.getByText('PostgreSQL it is').waitFor({ timeout: 60_000 });
    const sent = JSON.stringify(host.mock.messageRequests().at(-1)?.body);
    assert.match(sent, /PostgreSQL/);
    await finish(opened, 'question');
  });

  test('Stop mid-stream ends the turn as stopped, the answer cut off', async () => {
    const opened = await openSession('Stop');
    const { page } = opened;
    await send(page, 'a slow answer please');
    await page.locator('.streaming-caret').waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByText('Stopped by you').waitFor({ timeout: 30_000 });
    await page.getByText('Cut off: this answer was interrupted').waitFor();
    await page.getByRole('button', { name: 'Send' }).waitFor();
    await finish(opened, 'stop');
  });

  test('Stop with a prompt queued pauses it (the header says Paused); Resume queue runs it', async () => {
    const opened = await openSession('Stop pauses the queue');
    const { page } = opened;
    await send(page, 'a slow answer please');
    await page.locator('.streaming-caret').waitFor({ timeout: 60_000 });
    await composer(page).fill('then show me markdown');
    await page.getByRole('button', { name: 'Queue', exact: true }).click();
    await page.getByRole('list', { name: 'Queued prompts' }).getByText('then show me markdown').waitFor();
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByText('Stopped by you').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Resume queue' }).waitFor();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    assert.equal(await page.locator('.topbar .status').textContent(), 'Paused');
    assert.equal(await page.getByRole('heading', { name: 'A streamed markdown answer' }).count(), 0, 'nothing started');
    await page.getByRole('button', { name: 'Resume queue' }).click();
    await page.getByRole('heading', { name: 'A streamed markdown answer' }).waitFor({ timeout: 60_000 });
    await completed(page);
    assert.equal(await page.getByRole('list', { name: 'Queued prompts' }).count(), 0);
    assert.equal(await page.getByText('is paused').count(), 0, 'the composer no longer says the prompt is paused');
    await finish(opened, 'stop-queue');
  });

  test('queue and steer while a turn runs', async () => {
    const opened = await openSession('Queue and steer');
    const { page } = opened;
    await send(page, 'a slow answer please');
    await page.locator('.streaming-caret').waitFor({ timeout: 60_000 });
    await composer(page).fill('then show me markdown');
    await page.getByRole('button', { name: 'Queue', exact: true }).click();
    await page.getByRole('list', { name: 'Queued prompts' }).getByText('then show me markdown').waitFor();
    await composer(page).fill('keep it short');
    await page.getByRole('button', { name: 'Steer now' }).click();
    await page.locator('.bubble', { hasText: 'keep it short' }).waitFor({ timeout: 30_000 });
    await completed(page, 1);
    await page.getByRole('heading', { name: 'A streamed markdown answer' }).waitFor();
    assert.equal(await page.getByRole('list', { name: 'Queued prompts' }).count(), 0);
    await finish(opened, 'queue-steer');
  });

  test('fork from the first turn', async () => {
    const opened = await openSession('Fork source');
    const { page } = opened;
    await send(page, 'show me some markdown');
    await completed(page, 0);
    await send(page, 'think about it');
    await completed(page, 1);
    await page.getByRole('button', { name: 'Fork from here' }).first().click();
    await page.waitForURL((url) => !url.hash.includes(opened.id), { timeout: 60_000 });
    await completed(page, 0);
    assert.equal(await rowsOfKind(page, 'user').count(), 1);
    await page.getByRole('table').waitFor();
    assert.equal(await rowsOfKind(page, 'thinking').count(), 0);
    const forkId = decodeURIComponent(new URL(page.url()).hash.replace('#/s/', ''));
    await finish(opened, 'fork');
    await host.client.call('closeSession', { params: { id: forkId } });
  });

  test('Edit a sent prompt runs the edited text in a fork from just before it; Retry there runs it again', async () => {
    const opened = await openSession('Rerun source');
    const { page } = opened;
    await send(page, 'show me some markdown');
    await completed(page, 0);
    await send(page, 'think about it');
    await completed(page, 1);
    await page.getByRole('button', { name: 'Edit prompt' }).nth(1).click();
    const editor = page.getByRole('textbox', { name: 'Edited prompt' });
    await editor.fill('show me some markdown again');
    await editor.press('Control+Enter');
    await page.getByRole('heading', { level: 1, name: 'Rerun source (edited)', exact: true }).waitFor();
    const editedId = decodeURIComponent(new URL(page.url()).hash.replace('#/s/', ''));
    await completed(page, 1);
    assert.deepEqual(await page.locator('.item[data-kind="user"] .bubble').allTextContents(), [
      'show me some markdown',
      'show me some markdown again',
    ]);
    assert.equal(await page.getByRole('table').count(), 2, 'the edited prompt ran: a second table, no thinking');
    assert.equal(await rowsOfKind(page, 'thinking').count(), 0);
    const edited = (await host.client.call('getSession', { params: { id: editedId } })).session;
    assert.equal(edited.forkedFrom?.sessionId, opened.id);

    await page.getByRole('button', { name: 'Retry the last turn' }).click();
    await page.getByRole('heading', { level: 1, name: 'Rerun source (retry)', exact: true }).waitFor();
    const retriedId = decodeURIComponent(new URL(page.url()).hash.replace('#/s/', ''));
    await completed(page, 1);
    assert.equal(await rowsOfKind(page, 'user').count(), 2);
    assert.equal(await page.getByRole('table').count(), 2);
    const turns = await host.client.call('listMessages', { params: { id: editedId }, query: {} });
    assert.equal(
      turns.turns.filter((turn) => turn.status === 'completed').length,
      2,
      'the retried-from session kept its answer',
    );
    await finish(opened, 'rerun');
    for (const id of [editedId, retriedId]) await host.client.call('closeSession', { params: { id } });
  });

  test('a closed session says Closed, takes no prompt, and forks from its last turn', async () => {
    const opened = await openSession('To close');
    const { page } = opened;
    await send(page, 'think about it');
    await completed(page, 0);
    await page.getByRole('button', { name: 'Actions for To close' }).click();
    await page.getByRole('menuitem', { name: 'Close session…' }).click();
    await page
      .getByRole('dialog', { name: 'Close “To close”?' })
      .getByRole('button', { name: 'Close session' })
      .click();
    await page.locator('.topbar .status').filter({ hasText: 'Closed' }).waitFor();
    assert.equal(await composer(page).count(), 0);
    await page.getByText('This session is closed').waitFor();
    await page.getByRole('button', { name: 'Fork from the last turn' }).click();
    await page.waitForURL((url) => !url.hash.includes(opened.id), { timeout: 60_000 });
    await page.getByRole('heading', { level: 1, name: 'To close (fork)' }).waitFor();
    await completed(page, 0);
    await composer(page).waitFor();
    const forkId = decodeURIComponent(new URL(page.url()).hash.replace('#/s/', ''));
    await finish(opened, 'closed-fork');
    await host.client.call('closeSession', { params: { id: forkId } });
  });

  test('a reload mid-stream shows the same transcript without duplicates', async () => {
    const opened = await openSession('Reload');
    const { page } = opened;
    await send(page, 'a slow answer please');
    await page.locator('.streaming-caret').waitFor({ timeout: 60_000 });
    await page.reload();
    await page.locator('.streaming-caret').waitFor({ timeout: 30_000 });
    assert.equal(await rowsOfKind(page, 'user').count(), 1);
    assert.equal(await rowsOfKind(page, 'text').count(), 1);
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByText('Stopped by you').waitFor({ timeout: 30_000 });
    assert.equal(await rowsOfKind(page, 'text').count(), 1);
    await finish(opened, 'reload');
  });

  test('a second tab answers a prompt; the first closes it', async () => {
    const opened = await openSession('Two tabs');
    await send(opened.page, 'run a command');
    await opened.page.getByRole('button', { name: 'Allow', exact: true }).waitFor({ timeout: 60_000 });
    const second = await opened.context.newPage();
    await second.goto(`${host.host.baseUrl}/#/inbox`);
    await second
      .locator('.inbox-item', { has: second.getByRole('link', { name: 'Two tabs' }) })
      .getByRole('button', { name: 'Allow', exact: true })
      .click();
    await opened.page.getByText('Allowed once.').waitFor({ timeout: 30_000 });
    assert.equal(await opened.page.locator('.prompt').count(), 0);
    await completed(opened.page);
    await second.close();
    await finish(opened, 'two-tabs');
  });

  test('three tabs of one host all answer: the browser’s six connections are shared, not used up', async () => {
    const opened = await openSession('Three tabs');
    const tabs = [opened.page];
    for (let i = 0; i < 2; i += 1) {
      const tab = await opened.context.newPage();
      await tab.goto(`${host.host.baseUrl}/#/s/${opened.id}`);
      await tab.getByRole('heading', { level: 1, name: 'Three tabs', exact: true }).waitFor();
      tabs.push(tab);
    }
    // Each tab used to hold two streams: the third left no connection, so this send never went out.
    await send(tabs[2]!, 'run a command');
    for (const tab of tabs) await tab.getByRole('button', { name: 'Allow', exact: true }).waitFor({ timeout: 60_000 });
    await tabs[1]!.getByRole('button', { name: 'Allow', exact: true }).click();
    for (const tab of tabs) await tab.getByText('Allowed once.').waitFor({ timeout: 30_000 });
    await completed(tabs[0]!);
    for (const tab of tabs.slice(1)) await tab.close();
    await finish(opened, 'three-tabs');
  });

  test('an Edit is shown as a diff, before and after it ran', async () => {
    const opened = await openSession('Edit');
    const { page } = opened;
    await send(page, 'edit the greeting');
    await page.locator('.prompt .diff-code-delete', { hasText: "'Helo'" }).waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.getByText('Fixed the greeting.').waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: /Edit.*greet\.ts/ }).click();
    await page.locator('.tool-body .diff-code-insert', { hasText: "'Hello'" }).waitFor();
    // The turn's own diff, from the host's checkpoints of the directory.
    await page.locator('.turn-changes-toggle', { hasText: '1 file changed' }).click();
    await page
      .getByRole('list', { name: 'Files this turn changed' })
      .getByRole('button', { name: /greet\.ts/ })
      .click();
    await page.locator('.turn-changes .diff-code-insert', { hasText: "'Hello'" }).waitFor();
    await page.getByRole('button', { name: /^Revert hunk 1 .* of greet\.ts$/ }).waitFor();
    await finish(opened, 'edit');
  });

  test('no serious or critical axe violations, in both themes and at 375 px', async () => {
    const opened = await openSession('Axe');
    await send(opened.page, 'run a command');
    await opened.page.getByRole('button', { name: 'Allow', exact: true }).waitFor({ timeout: 60_000 });
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1280, 375]) {
        const page = await opened.context.newPage();
        await page.emulateMedia({ colorScheme });
        await page.setViewportSize({ width, height: 860 });
        await page.goto(`${host.host.baseUrl}/#/s/${opened.id}`);
        await page.getByRole('button', { name: 'Allow', exact: true }).waitFor();
        const violations = await seriousViolations(page);
        assert.deepEqual(
          violations.map((v) => `${v.id}: ${v.help}`),
          [],
          `${colorScheme} at ${width} px`,
        );
        await page.screenshot({ path: `${outputDir}e2e-axe-${colorScheme}-${width}.png` });
        await page.close();
      }
    }
    await opened.page.getByRole('button', { name: 'Allow', exact: true }).click();
    await completed(opened.page);
    await finish(opened, 'axe');
  });
});

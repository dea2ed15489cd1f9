import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { composer, until } from './pageActions.ts';
import { outputDir, seriousViolations, startUiHarness, type UiHarness } from './uiHarness.ts';

/*
 * Managing sessions (issue 17) in Chromium against the fixture host: Close asks first (and offers Archive
 * instead); Archive hides a session and the Archived view restores it; Delete asks, then says what stays of
 * Claude Code's transcript and how to remove it; search over titles and prompts and the Needs you / Running
 * filters; a closed session's demo buttons and task box look and are disabled; the working-directory field
 * offers recent folders and completion, says a refusal at the field, and opening New session from the
 * phone drawer closes the drawer. Axe-clean in both themes and at 375 px.
 */

let ui: UiHarness;
before(async () => {
  ui = await startUiHarness();
});
after(async () => {
  await ui?.close();
});

const sessionList = (page: Page) => page.getByRole('list', { name: /Sessions|Archived sessions/ });
const listedTitles = async (page: Page) =>
  (await sessionList(page).locator('.session-title .name').allInnerTexts()).sort();

async function menuItem(page: Page, title: string, item: string | RegExp) {
  await page.getByRole('button', { name: `Actions for ${title}`, exact: true }).click();
  await page.getByRole('menuitem', { name: item }).click();
}

const waitUntil = (check: () => Promise<boolean>, what: string) => until(what, check, 10_000);

describe('close, archive, delete', () => {
  test('Close asks first: Cancel keeps it open, Close closes it; the demo buttons and the task box look and are disabled', async () => {
    const { id, page, context } = await ui.openSession('Close me');
    await menuItem(page, 'Close me', 'Close session…');
    const dialog = page.getByRole('dialog', { name: 'Close “Close me”?' });
    await dialog.getByText('Closing cannot be undone').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal(ui.host.sessions.get(id)!.detail.closed, false, 'Cancel closed nothing');

    await menuItem(page, 'Close me', 'Close session…');
    await dialog.getByRole('button', { name: 'Close session' }).click();
    await page.locator('.topbar .status').filter({ hasText: 'Closed' }).waitFor();
    assert.equal(ui.host.sessions.get(id)!.detail.closed, true);

    const demos = page.locator('.demo-prompt');
    await page.screenshot({ path: `${outputDir}sessions-closed.png` });
    await waitUntil(
      async () =>
        (await demos.evaluateAll((buttons) => buttons.every((b) => (b as HTMLButtonElement).disabled))) === true,
      'every demo button is disabled',
    );
    assert.equal(await demos.count(), 7);
    const demo = demos.first();
    const opacity = await demo.evaluate((element) => Number(getComputedStyle(element).opacity));
    assert.ok(opacity < 0.7, `and look it (opacity ${opacity})`);
    assert.equal(
      await demo.evaluate((element) => getComputedStyle(element).cursor),
      'not-allowed',
      'the pointer says so too',
    );
    const taskBox = page.getByRole('textbox', { name: 'New task' });
    if (!(await taskBox.isVisible())) await page.getByRole('button', { name: /panel/i }).first().click();
    assert.equal(await taskBox.isDisabled(), true, 'the task box is disabled');
    assert.equal(await taskBox.getAttribute('placeholder'), 'Closed: no new tasks');
    assert.equal(await page.getByRole('button', { name: 'Add task' }).isDisabled(), true);
    const refused = await page.evaluate(async (sessionId) => {
      const response = await fetch('/api/tasks', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ session_id: sessionId, title: 'sneaky' }),
      });
      return [response.status, ((await response.json()) as { error: { code: string } }).error.code];
    }, id);
    assert.deepEqual(refused, [409, 'session_closed'], 'the host refuses a task too');
    await context.close();
  });

  test('Archive hides a session; the Archived view lists it and Restore brings it back', async () => {
    const { id, page, context } = await ui.openSession('Keep for later');
    await menuItem(page, 'Keep for later', 'Archive');
    await waitUntil(async () => !(await listedTitles(page)).includes('Keep for later'), 'archived: out of the list');
    assert.notEqual(ui.host.sessions.get(id)!.archivedAt, null);

    await page.getByRole('button', { name: 'Archived', exact: true }).click();
    await page.getByText('Archived sessions', { exact: true }).waitFor();
    await waitUntil(async () => (await listedTitles(page)).includes('Keep for later'), 'listed under Archived');
    await page.screenshot({ path: `${outputDir}sessions-archived.png` });
    await menuItem(page, 'Keep for later', 'Restore');
    await waitUntil(async () => !(await listedTitles(page)).includes('Keep for later'), 'gone from Archived');
    await page.getByRole('button', { name: 'Archived', exact: true }).click();
    await waitUntil(async () => (await listedTitles(page)).includes('Keep for later'), 'back in the list');
    assert.equal(ui.host.sessions.get(id)!.archivedAt, null);
    await context.close();
  });

  test('a running session cannot be archived: the host’s reason is shown at the session', async () => {
    const { page, context } = await ui.openSession('Busy one');
    await composer(page).fill('slow answer');
    await composer(page).press('Enter');
    await page.getByRole('button', { name: 'Stop', exact: true }).waitFor();
    await menuItem(page, 'Busy one', 'Archive');
    await page.getByRole('alert').filter({ hasText: 'the session is running; stop it' }).waitFor();
    assert.ok((await listedTitles(page)).includes('Busy one'));
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await context.close();
  });

  test('Delete asks, then says Claude Code’s transcript stays and gives the command that removes it', async () => {
    const { id, page, context } = await ui.openSession('Throw away');
    await menuItem(page, 'Throw away', 'Delete…');
    const dialog = page.getByRole('dialog', { name: 'Delete “Throw away” for good?' });
    await dialog.getByText('Outrigger does not delete it').waitFor();
    assert.match((await dialog.textContent()) ?? '', /~\/\.claude\/projects/);
    await page.screenshot({ path: `${outputDir}sessions-delete-confirm.png` });
    await dialog.getByRole('button', { name: 'Delete session' }).click();
    const done = page.getByRole('dialog', { name: 'Deleted “Throw away”' });
    await done.getByText(`find ~/.claude/projects -name 'p-${id}.jsonl' -delete`).waitFor();
    await page.screenshot({ path: `${outputDir}sessions-deleted.png` });
    assert.equal(ui.host.sessions.has(id), false);
    await done.getByRole('button', { name: 'Done' }).click();
    await waitUntil(async () => !(await listedTitles(page)).includes('Throw away'), 'gone from the list');
    await page.waitForURL((url) => !url.hash.includes(id));
    await context.close();
  });
});

describe('search and filters', () => {
  test('search finds a session by a prompt (with the matching text) and by title; Running filters', async () => {
    const { page, context } = await ui.openSession('Sockets');
    await composer(page).fill('please look at the flaky websocket test');
    await composer(page).press('Enter');
    await page.locator('.outcome').first().waitFor();
    await ui.createSession('Websocket notes');
    await ui.createSession('Unrelated');

    const search = page.getByRole('searchbox', { name: 'Search sessions' });
    await search.fill('websocket');
    await waitUntil(
      async () => JSON.stringify(await listedTitles(page)) === JSON.stringify(['Sockets', 'Websocket notes']),
      'both hits listed',
    );
    await sessionList(page).getByText('“please look at the flaky websocket test”').waitFor();
    await page.screenshot({ path: `${outputDir}sessions-search.png` });
    await search.fill('no such words');
    await sessionList(page).getByText('No session matches.').waitFor();
    await search.press('Escape');

    // Needs you: a command waiting for approval; Running: a slow answer in another session.
    await composer(page).fill('run a command');
    await composer(page).press('Enter');
    await page
      .locator('.topbar .status')
      .filter({ hasText: /Needs you|Waiting/ })
      .waitFor();
    await page.getByRole('button', { name: 'Needs you', exact: true }).click();
    await waitUntil(
      async () => JSON.stringify(await listedTitles(page)) === JSON.stringify(['Sockets']),
      'only the one that waits',
    );
    const busy = await ui.createSession('Busy elsewhere');
    await page.getByRole('button', { name: 'Running', exact: true }).click();
    await fetch(`${ui.host.url}/api/sessions/${busy}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'slow answer' }),
    });
    await waitUntil(
      async () => JSON.stringify(await listedTitles(page)) === JSON.stringify(['Busy elsewhere']),
      'only the running one',
    );
    await page.screenshot({ path: `${outputDir}sessions-running-filter.png` });
    await page.getByRole('button', { name: 'All', exact: true }).click();
    await context.close();
  });
});

describe('new session', () => {
  test('at 375 px New session from the drawer closes the drawer; the folder field completes, offers recent ones, and says a refusal there', async () => {
    await ui.createSession('Recent one', { cwd: '/work/api' });
    const { page, context } = await ui.open({ width: 375, height: 812 });
    await page.getByRole('button', { name: 'Open the session list' }).click();
    await page.locator('.sidebar[data-open="true"]').waitFor();
    await page.getByRole('button', { name: 'New session', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'New session' });
    await dialog.waitFor();
    assert.equal(await page.locator('.sidebar').getAttribute('data-open'), 'false', 'the drawer closed');
    assert.equal(await page.locator('.sidebar').isVisible(), false);

    const field = dialog.getByRole('combobox', { name: 'Working directory' });
    await field.focus();
    const recent = dialog.getByRole('listbox', { name: 'Recent folders' });
    await recent.getByRole('option', { name: '/work/api' }).waitFor();
    await page.screenshot({ path: `${outputDir}sessions-new-recent-375.png` });

    await field.fill('/work/p');
    const folders = dialog.getByRole('listbox', { name: 'Folders' });
    await folders.getByRole('option', { name: '/work/project/' }).waitFor();
    await field.press('ArrowDown');
    await field.press('Enter');
    assert.equal(await field.inputValue(), '/work/project/');
    await folders.getByRole('option', { name: '/work/project/src/' }).waitFor();
    await page.screenshot({ path: `${outputDir}sessions-new-complete-375.png` });

    await field.fill('~/co');
    await folders.getByRole('option', { name: '/home/me/code/' }).waitFor();

    await field.fill('/work/missing-folder');
    await dialog.getByRole('button', { name: 'Create session' }).click();
    const error = dialog.getByText('Working directory: /work/missing-folder does not exist');
    await error.waitFor();
    assert.equal(await field.getAttribute('aria-invalid'), 'true', 'said at the field');
    await page.screenshot({ path: `${outputDir}sessions-new-error-375.png` });

    await field.fill('~/code/outrigger');
    await dialog.getByRole('button', { name: 'Create session' }).click();
    await page.getByRole('heading', { level: 1, name: 'New session' }).waitFor();
    const created = [...ui.host.sessions.values()].at(-1)!;
    assert.equal(created.detail.cwd, '/home/me/code/outrigger', '~ is expanded by the host');
    await context.close();
  });
});

describe('accessibility', () => {
  test('the sidebar’s search and filters, the archived view and the dialogs are axe-clean in both themes and at 375 px', async () => {
    await ui.createSession('Axe archived');
    const archivedId = [...ui.host.sessions.values()].at(-1)!.id;
    ui.host.sessions.get(archivedId)!.archivedAt = Date.now();
    for (const [width, height] of [
      [1280, 860],
      [375, 812],
    ] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const { page, context } = await ui.openSession(`Axe ${width} ${colorScheme}`, { width, height, colorScheme });
        const check = async (what: string) => {
          const violations = await seriousViolations(page);
          assert.deepEqual(
            violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
            [],
            `${what}: ${colorScheme} at ${width} px`,
          );
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          assert.equal(overflow, 0, `${what}: nothing scrolls sideways`);
        };
        const drawer = async () => {
          if (width < 700 && (await page.locator('.sidebar[data-open="true"]').count()) === 0) {
            await page.getByRole('button', { name: 'Open the session list' }).click();
            await page.locator('.sidebar[data-open="true"]').waitFor();
          }
        };
        await drawer();
        await page.getByRole('searchbox', { name: 'Search sessions' }).fill('axe');
        await page.getByRole('button', { name: 'Running', exact: true }).click();
        await check('search and filter');
        await page.getByRole('button', { name: 'All', exact: true }).click();
        await page.getByRole('button', { name: 'Archived', exact: true }).click();
        await sessionList(page).getByText('Axe archived').waitFor();
        await check('archived view');
        await page.screenshot({ path: `${outputDir}sessions-sidebar-${width}-${colorScheme}.png` });
        await page.getByRole('button', { name: 'Archived', exact: true }).click();
        await page.getByRole('searchbox', { name: 'Search sessions' }).fill('');
        const title = `Axe ${width} ${colorScheme}`;
        await menuItem(page, title, 'Close session…');
        await page.getByRole('dialog', { name: `Close “${title}”?` }).waitFor();
        await check('close dialog');
        await page.screenshot({ path: `${outputDir}sessions-close-${width}-${colorScheme}.png` });
        await page.keyboard.press('Escape');
        await drawer();
        await menuItem(page, title, 'Delete…');
        await page.getByRole('dialog', { name: `Delete “${title}” for good?` }).waitFor();
        await check('delete dialog');
        await page.screenshot({ path: `${outputDir}sessions-delete-${width}-${colorScheme}.png` });
        await page.keyboard.press('Escape');
        await drawer();
        await page.getByRole('button', { name: 'New session', exact: true }).click();
        const field = page.getByRole('combobox', { name: 'Working directory' });
        await field.fill('/work/');
        await page.getByRole('option', { name: '/work/project/' }).waitFor();
        await check('new session with completions');
        await page.screenshot({ path: `${outputDir}sessions-new-${width}-${colorScheme}.png` });
        await context.close();
      }
    }
  });
});

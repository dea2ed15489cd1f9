import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAxeClean, composer } from './pageActions.ts';
import { outputDir, startUiHarness, type UiHarness } from './uiHarness.ts';

/*
 * The composer and its controls in Chromium against the fixture host (issue 17): `/` lists the session's slash
 * commands and `@` its files, by keyboard; one mode control with each mode's sentence; the model picker offers
 * what Claude Code reports with descriptions, and a model it rejects is said where it was chosen; "Notify me"
 * says why there will be no notifications; the context meter keeps its last value. Axe-clean in both themes
 * and at 375 px, with the completion list open.
 */

let ui: UiHarness;
before(async () => {
  ui = await startUiHarness();
});
after(async () => {
  await ui?.close();
});

const activeOption = (page: Page) =>
  composer(page).evaluate((element) => {
    const id = element.getAttribute('aria-activedescendant');
    return id === null ? null : (document.getElementById(id)?.querySelector('.completion-label')?.textContent ?? null);
  });

describe('composer completions', () => {
  test('`/` lists the session’s slash commands with their descriptions; arrows, Enter and Esc work', async () => {
    const { id, page, context } = await ui.openSession('Slash');
    await composer(page).click();
    await composer(page).press('/');
    const list = page.getByRole('listbox', { name: 'Slash commands' });
    await list.waitFor();
    const deploy = list.getByRole('option', { name: /\/deploy \[environment\]/ });
    await deploy.waitFor();
    assert.match((await deploy.textContent()) ?? '', /Deploy the app \(project\)/, 'the project command, described');
    assert.equal(await composer(page).getAttribute('aria-autocomplete'), 'list');
    assert.equal(await composer(page).getAttribute('aria-controls'), await list.getAttribute('id'));

    await composer(page).pressSequentially('con');
    await page.waitForFunction(() => document.querySelectorAll('[role="option"]').length === 3);
    assert.deepEqual(
      await list.locator('.completion-label').allTextContents(),
      ['/context', '/compact <optional custom summarization instructions>', '/usage'],
      'a name that starts with the query, then descriptions that hold it',
    );
    assert.equal(await activeOption(page), '/context');
    await composer(page).press('ArrowDown');
    assert.equal(await activeOption(page), '/compact <optional custom summarization instructions>');
    assert.equal(await list.getByRole('option', { selected: true }).count(), 1);
    await composer(page).press('ArrowUp');
    await composer(page).press('ArrowUp');
    assert.equal(await activeOption(page), '/usage', 'the arrows wrap around');
    await composer(page).press('ArrowDown');
    await composer(page).press('Enter');
    assert.equal(await composer(page).inputValue(), '/context ', 'Enter inserts the command; it does not send');
    await list.waitFor({ state: 'detached' });
    assert.equal(ui.host.sessions.get(id)!.userTurnIds().length, 0, 'nothing was sent');

    // Esc closes the list and keeps the text; the next Enter sends.
    await composer(page).fill('');
    await composer(page).pressSequentially('/dep');
    await list.getByRole('option').first().waitFor();
    await composer(page).press('Escape');
    await list.waitFor({ state: 'detached' });
    assert.equal(await composer(page).inputValue(), '/dep');
    await context.close();
  });

  test('`@` completes file paths under the session’s directory; Tab inserts, a folder keeps completing', async () => {
    const { page, context } = await ui.openSession('At files');
    await composer(page).click();
    await composer(page).pressSequentially('look at @gre');
    const list = page.getByRole('listbox', { name: 'Files' });
    await list.getByRole('option', { name: 'src/greet.ts' }).waitFor();
    await composer(page).press('Tab');
    assert.equal(await composer(page).inputValue(), 'look at @src/greet.ts ');
    await list.waitFor({ state: 'detached' });

    await composer(page).pressSequentially('and @sr');
    await list.getByRole('option', { name: /^src\/\s*folder$/ }).waitFor();
    assert.equal(await activeOption(page), 'src/');
    await composer(page).press('Enter');
    assert.equal(await composer(page).inputValue(), 'look at @src/greet.ts and @src/');
    await list.getByRole('option', { name: 'src/greet.ts' }).waitFor();
    // A click inserts too, and the caret stays in the composer.
    await list.getByRole('option', { name: 'src/greet.ts' }).click();
    assert.equal(await composer(page).inputValue(), 'look at @src/greet.ts and @src/greet.ts ');
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.id),
      await composer(page).getAttribute('id'),
    );
    await context.close();
  });

  test('axe-clean with the list open, in both themes and at 375 px; a screenshot of each', async () => {
    for (const [name, options] of [
      ['light', { colorScheme: 'light' as const }],
      ['dark', { colorScheme: 'dark' as const }],
      ['phone', { width: 375, height: 812, colorScheme: 'light' as const }],
      ['phone-dark', { width: 375, height: 812, colorScheme: 'dark' as const }],
    ] as const) {
      const { page, context } = await ui.openSession(`Axe ${name}`, options);
      await composer(page).click();
      await composer(page).press('/');
      await page.getByRole('listbox', { name: 'Slash commands' }).getByRole('option').first().waitFor();
      await assertAxeClean(page, `${name}, slash commands open`);
      if (name.startsWith('phone')) {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
        const box = await page.locator('.completions').boundingBox();
        assert.ok(
          box !== null && box.x >= 0 && box.x + box.width <= 375,
          `the list fits the screen: ${JSON.stringify(box)}`,
        );
      }
      await page.screenshot({ path: `${outputDir}composer-slash-${name}.png` });
      await composer(page).fill('read @src/');
      await page.getByRole('listbox', { name: 'Files' }).getByRole('option').first().waitFor();
      await assertAxeClean(page, `${name}, files open`);
      await page.screenshot({ path: `${outputDir}composer-files-${name}.png` });
      await context.close();
    }
  });
});

describe('mode and model', () => {
  test('one mode control, each mode described; choosing plan sets both fields, leaving it clears both', async () => {
    const { id, page, context } = await ui.openSession('Modes');
    assert.equal(await page.getByRole('checkbox', { name: 'Plan mode' }).count(), 0, 'no second control for plan mode');
    const mode = page.getByRole('combobox', { name: 'Mode', exact: true });
    assert.deepEqual(await mode.locator('option').allTextContents(), [
      'Ask first',
      'Accept edits',
      'Plan mode',
      'Bypass permissions',
      'Auto',
    ]);
    await page.getByText('Claude asks before it edits a file or runs a command.').waitFor();
    await mode.selectOption('plan');
    await page.getByText('nothing changes until you approve it').waitFor();
    await page.waitForFunction(() => true);
    const session = ui.host.sessions.get(id)!;
    await waitFor(() => session.detail.settings.permissionMode === 'plan');
    assert.equal(session.detail.settings.planMode, true);
    await mode.selectOption('acceptEdits');
    await waitFor(() => session.detail.settings.permissionMode === 'acceptEdits');
    assert.equal(session.detail.settings.planMode, false, 'leaving plan mode leaves the old switch off too');
    assert.equal(await mode.inputValue(), 'acceptEdits');
    await assertAxeClean(page, 'settings bar');
    await page.screenshot({ path: `${outputDir}composer-modes.png` });
    await context.close();
  });

  test('the model picker offers what Claude Code reports, with descriptions; a rejected model is said at the picker', async () => {
    const { id, page, context } = await ui.openSession('Models');
    const model = page.getByRole('combobox', { name: 'Model', exact: true });
    assert.deepEqual(await model.locator('option').allTextContents(), [
      'Default (recommended)',
      'Opus',
      'Fable',
      'Sonnet',
      'Haiku',
      'Other model id…',
    ]);
    await model.selectOption('fable');
    await page.getByText('Fable 5.2 · Most capable for your hardest and longest-running tasks').waitFor();
    await waitFor(() => ui.host.sessions.get(id)!.detail.settings.model === 'fable');
    await model.selectOption({ label: 'Other model id…' });
    await page.getByRole('textbox', { name: 'Model id' }).fill('gpt-4o');
    await page.getByRole('button', { name: 'Use', exact: true }).click();
    const alert = page.locator('.picker [role="alert"]');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /Claude Code rejected the model "gpt-4o"/);
    assert.equal(await model.getAttribute('aria-invalid'), 'true');
    assert.equal(ui.host.sessions.get(id)!.detail.settings.model, 'fable', 'the model stays as it was');
    await assertAxeClean(page, 'model error');
    await page.screenshot({ path: `${outputDir}composer-model-error.png` });
    await context.close();
  });

  test('New session offers the reported models and says a rejected one at its field', async () => {
    const { page, context } = await ui.open({ colorScheme: 'dark' });
    await page
      .getByRole('button', { name: /New session/ })
      .first()
      .click();
    const dialog = page.getByRole('dialog', { name: 'New session' });
    await dialog.waitFor();
    const model = dialog.getByRole('combobox', { name: 'Model', exact: true });
    await model.locator('option', { hasText: 'Fable' }).waitFor({ state: 'attached' });
    await dialog.getByText('Use the default model (currently Opus 5.5)').waitFor();
    await model.selectOption({ label: 'Other model id…' });
    await dialog.getByRole('textbox', { name: 'Model id' }).fill('gpt-4o');
    await dialog.getByRole('button', { name: 'Create session' }).click();
    const alert = dialog.locator('.picker [role="alert"]');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /Claude Code rejected the model "gpt-4o"/);
    assert.equal(await dialog.isVisible(), true, 'the dialog stays open to fix it');
    await assertAxeClean(page, 'new session, model error');
    await page.screenshot({ path: `${outputDir}composer-new-session-model.png` });
    await model.selectOption('sonnet');
    await dialog.getByRole('combobox', { name: 'Mode', exact: true }).selectOption('plan');
    await dialog.getByRole('button', { name: 'Create session' }).click();
    await dialog.waitFor({ state: 'detached' });
    const created = [...ui.host.sessions.values()].at(-1)!;
    assert.equal(created.detail.settings.model, 'sonnet');
    assert.equal(created.detail.settings.permissionMode, 'plan');
    await context.close();
  });
});

describe('notifications and the context meter', () => {
  test('"Notify me" says when the browser refuses and how to allow it', async () => {
    // A browser that refuses when asked.
    const { page, context } = await ui.open({
      hash: '#/inbox',
      beforeLoad: () => {
        let permission = 'default';
        // biome-ignore lint/complexity/noStaticOnlyClass: it stands in for the browser's Notification class
        class FakeNotification {
          static get permission() {
            return permission;
          }
          static requestPermission() {
            permission = 'denied';
            return Promise.resolve('denied');
          }
        }
        Object.defineProperty(window, 'Notification', { value: FakeNotification, configurable: true });
      },
    });
    await page.getByRole('button', { name: 'Notify me' }).click();
    const advice = page.getByRole('status').filter({ hasText: 'Notifications are off' });
    await advice.waitFor();
    assert.match((await advice.textContent()) ?? '', /site settings.*Allow/);
    assert.equal(await page.getByRole('button', { name: 'Notify me' }).count(), 0);
    await assertAxeClean(page, 'inbox, notifications refused');
    await page.screenshot({ path: `${outputDir}composer-notify-denied.png` });
    await context.close();
  });

  test('allowed: a notification when a session needs you and when a turn ends while the tab is hidden; the title counts', async () => {
    const { page, context } = await ui.open({
      beforeLoad: () => {
        const shown: string[] = [];
        (window as unknown as { shown: string[] }).shown = shown;
        class FakeNotification {
          static permission = 'granted';
          onclick: (() => void) | null = null;
          constructor(title: string) {
            shown.push(title);
          }
        }
        Object.defineProperty(window, 'Notification', { value: FakeNotification, configurable: true });
        Object.defineProperty(document, 'visibilityState', { get: () => 'hidden', configurable: true });
      },
    });
    await page
      .getByText('Notifications on')
      .waitFor({ timeout: 1 })
      .catch(() => undefined);
    const asking = await ui.createSession('Asks');
    await fetch(`${ui.host.url}/api/sessions/${asking}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'run a command' }),
    });
    await page.waitForFunction(() => document.title === '(1) Outrigger');
    await page.waitForFunction(() =>
      (window as unknown as { shown: string[] }).shown.some((title) => title === 'Asks needs you'),
    );
    const quick = await ui.createSession('Quick');
    await fetch(`${ui.host.url}/api/sessions/${quick}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'hello' }),
    });
    await page.waitForFunction(() =>
      (window as unknown as { shown: string[] }).shown.some((title) => title === 'Quick is done'),
    );
    await context.close();
  });

  test('the context meter keeps its last value while a new turn has none yet', async () => {
    const { id, page, context } = await ui.openSession('Meter');
    await composer(page).fill('hello');
    await composer(page).press('Enter');
    const share = page.getByTestId('context-share');
    await page.waitForFunction(() =>
      /%$/.test(document.querySelector('[data-testid="context-share"]')?.textContent ?? ''),
    );
    const measured = await share.textContent();
    // A turn starts, and the host says nothing of the window yet.
    const session = ui.host.sessions.get(id)!;
    session.emit('usage', { turnId: 'next', usage: { ...session.detail.usage, contextWindow: null } });
    await page.waitForTimeout(300);
    assert.equal(await share.textContent(), measured, 'not reset to —');
    assert.notEqual(measured, '—');
    await context.close();
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

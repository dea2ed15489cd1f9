import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { assertAxeClean, send } from './pageActions.ts';
import { outputDir, startUiHarness, type UiHarness } from './uiHarness.ts';

/*
 * How a tool call ended and what the person decided read the same live and after a reload: each test
 * reads the call's card while the turn is live, reloads, and reads it again. The fixture host stores the
 * decision on the call as the host does (the `tool_use` that carries it, the `tool_result` with the
 * stored call); the host side of the same contract is tested over HTTP with the real Claude Code.
 */

let ui: UiHarness;
before(async () => {
  ui = await startUiHarness();
});
after(async () => {
  await ui?.close();
});

/** What a call's card says, closed: its head's state (outcome and duration) and its decision line. */
async function cardText(card: Locator): Promise<{ state: string; decision: string | null; status: string | null }> {
  const decision = card.locator(':scope > .prompt-resolved[data-decision]');
  return {
    state: (await card.locator('.tool-state').innerText()).trim(),
    decision: (await decision.count()) === 0 ? null : (await decision.innerText()).trim(),
    status: await card.getAttribute('data-status'),
  };
}

async function reloadAndWait(page: Page, card: () => Locator): Promise<void> {
  await page.reload();
  await page.waitForSelector('.app');
  await card().waitFor();
}

const bashCard = (page: Page) => page.locator('.tool').filter({ hasText: 'outrigger-demo' }).first();
const questionCard = (page: Page) => page.locator('.tool').filter({ hasText: 'Which database' }).first();

describe('decisions and outcomes, live and after a reload', () => {
  test('a Bash call denied with a reason reads "denied · …" and "Denied: not now", never as a failure', async () => {
    const { page, context } = await ui.openSession('Denied');
    await send(page, 'run a command please');
    await page.getByRole('button', { name: 'Deny…' }).click();
    await page.getByRole('textbox', { name: 'Reason for denying' }).fill('not now');
    await page.getByRole('button', { name: 'Deny', exact: true }).click();
    await page.locator('.outcome.completed').waitFor();
    const live = await cardText(bashCard(page));
    assert.equal(live.decision, 'Denied: not now');
    assert.match(live.state, /^denied · \d/);
    assert.equal(live.status, 'denied');
    assert.equal(await bashCard(page).locator('.tool-state.failed').count(), 0, 'not shown as a failure');
    await reloadAndWait(page, () => bashCard(page));
    assert.deepEqual(await cardText(bashCard(page)), live, 'the same after a reload');
    await bashCard(page).screenshot({ path: `${outputDir}tool-outcomes-denied.png` });
    await context.close();
  });

  test('"Allow for this session" says what it covers, and the call keeps the choice; "Allow" keeps "Allowed once"', async () => {
    const { page, context } = await ui.openSession('Allowed');
    await send(page, 'run a command please');
    const always = page.getByRole('button', { name: 'Allow for this session' });
    await always.waitFor();
    const covers = 'For this session allows this exact command, and Bash(mkdir:*), without asking again.';
    assert.equal((await page.locator('.prompt-grant').innerText()).trim(), covers);
    // The button is described by what it covers (a screen reader hears it with the button).
    const describedBy = await always.getAttribute('aria-describedby');
    assert.equal((await page.locator(`[id="${describedBy}"]`).innerText()).trim(), covers);
    await page.screenshot({ path: `${outputDir}tool-outcomes-grant.png` });
    await always.click();
    await page.locator('.outcome.completed').waitFor();
    const live = await cardText(bashCard(page));
    assert.equal(live.decision, 'Allowed for this session: this exact command, and Bash(mkdir:*).');
    assert.equal(live.status, 'completed');
    assert.match(live.state, /^\d+(\.\d)? (ms|s)$/, 'a completed call shows its duration only');
    await reloadAndWait(page, () => bashCard(page));
    assert.deepEqual(await cardText(bashCard(page)), live);

    const once = await ui.openSession('Allowed once');
    await send(once.page, 'run a command please');
    await once.page.getByRole('button', { name: 'Allow', exact: true }).click();
    await once.page.locator('.outcome.completed').waitFor();
    const onceLive = await cardText(bashCard(once.page));
    assert.equal(onceLive.decision, 'Allowed once.');
    await reloadAndWait(once.page, () => bashCard(once.page));
    assert.deepEqual(await cardText(bashCard(once.page)), onceLive);
    await once.context.close();
    await context.close();
  });

  test('an answered question shows "Answered: …" and, opened, the questions and chosen answers (no raw JSON)', async () => {
    const { page, context } = await ui.openSession('Question');
    await send(page, 'ask me a question');
    await page.getByRole('radio', { name: /SQLite/ }).check();
    await page.getByRole('checkbox', { name: 'A cache' }).check();
    await page.getByRole('button', { name: 'Send answer' }).click();
    await page.locator('.outcome.completed').waitFor();

    const readOpened = async () => {
      const card = questionCard(page);
      const head = card.locator('.tool-head');
      if ((await head.getAttribute('aria-expanded')) !== 'true') await head.click();
      const body = card.locator('.tool-body');
      await body.locator('.qa-list').waitFor();
      return {
        closed: await cardText(card),
        questions: await body.locator('.qa-list > li').allInnerTexts(),
        body: await body.innerText(),
      };
    };
    const live = await readOpened();
    assert.equal(live.closed.decision, 'Answered: SQLite, A cache.');
    assert.deepEqual(
      live.questions.map((text) => text.replace(/\s+/g, ' ').trim()),
      [
        'Database Which database should the demo app use? Chosen: SQLite',
        'Extras Which extras should it have? Chosen: A cache',
      ],
    );
    assert.doesNotMatch(live.body, /"multiSelect"|"questions"/, 'not the raw input');
    await reloadAndWait(page, () => questionCard(page));
    assert.deepEqual(await readOpened(), live, 'the same after a reload');

    await assertAxeClean(page, 'the opened question card, light');
    await page.screenshot({ path: `${outputDir}tool-outcomes-question-light.png` });
    await context.close();
  });

  test('decided cards are axe-clean in the dark theme and at 375 px', async () => {
    for (const options of [
      { colorScheme: 'dark' as const },
      { colorScheme: 'light' as const, width: 375, height: 812 },
      { colorScheme: 'dark' as const, width: 375, height: 812 },
    ]) {
      const { page, context } = await ui.openSession(`Themes ${options.colorScheme} ${options.width ?? 1280}`, options);
      await send(page, 'run a command please');
      await page.getByRole('button', { name: 'Allow for this session' }).waitFor();
      await assertAxeClean(page, `the approval card with its grant line, ${JSON.stringify(options)}`);
      await page.getByRole('button', { name: 'Deny…' }).click();
      await page.getByRole('textbox', { name: 'Reason for denying' }).fill('not now');
      await page.getByRole('button', { name: 'Deny', exact: true }).click();
      await page.locator('.outcome.completed').waitFor();
      await send(page, 'ask me a question');
      await page.getByRole('radio', { name: /PostgreSQL/ }).check();
      await page.getByRole('checkbox', { name: 'Metrics' }).check();
      await page.getByRole('button', { name: 'Send answer' }).click();
      await page.locator('.outcome.completed').nth(1).waitFor();
      await reloadAndWait(page, () => questionCard(page));
      await questionCard(page).locator('.tool-head').click();
      await questionCard(page).locator('.qa-list').waitFor();
      await assertAxeClean(page, `decided cards after a reload, ${JSON.stringify(options)}`);
      assert.equal((await cardText(bashCard(page))).decision, 'Denied: not now');
      await page.screenshot({
        path: `${outputDir}tool-outcomes-${options.colorScheme}-${options.width ?? 1280}.png`,
        fullPage: true,
      });
      await context.close();
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { send } from './pageActions.ts';
import { outputDir, seriousViolations, startUiHarness, type UiHarness } from './uiHarness.ts';

/*
 * *Stop must stop* in Chromium against the fixture host: Stop with prompts queued starts none of them; the
 * header and the composer agree (Paused, not Running); each queued prompt has Run now / Edit / Remove, the list
 * Resume; a new send while paused runs first; a reload shows the same paused queue; axe-clean in both themes
 * and at 375 px.
 */

let ui: UiHarness;
before(async () => {
  ui = await startUiHarness();
});
after(async () => {
  await ui?.close();
});

const queuedList = (page: Page) => page.getByRole('list', { name: 'Queued prompts' });
const headerStatus = (page: Page) => page.locator('.topbar .status');

/** The prompts of the turns that started in the session, in order (from the fixture host's log). */
function startedPrompts(id: string): string[] {
  return ui.host.sessions
    .get(id)!
    .log.filter((event) => event.type === 'turn_started')
    .map((event) => {
      const message = (event.data as { message: { content: { type: string; text?: string }[] } | null }).message;
      return message?.content.find((block) => block.type === 'text')?.text ?? '';
    });
}

/** A slow turn with `queued` prompts behind it, then the person's Stop. */
async function stoppedWithQueue(page: Page, queued: readonly string[]): Promise<void> {
  await send(page, 'slow answer');
  await page.getByRole('button', { name: 'Steer now' }).waitFor();
  for (const prompt of queued) await send(page, prompt);
  await queuedList(page)
    .getByRole('listitem')
    .nth(queued.length - 1)
    .waitFor();
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await page.getByText('Stopped by you').first().waitFor();
  await page.getByRole('button', { name: 'Send' }).waitFor();
}

describe('Stop must stop', () => {
  test('Stop with two prompts queued starts neither; header and composer say Paused; Edit, Remove and Run now', async () => {
    const { id, page, context } = await ui.openSession('Stop stops');
    await stoppedWithQueue(page, ['first follow-up', 'second follow-up']);
    await page.getByText('Paused', { exact: true }).first().waitFor();
    await page.getByRole('status').filter({ hasText: 'Stopped. 2 queued prompts are paused.' }).waitFor();
    await new Promise((resolve) => setTimeout(resolve, 800));
    assert.deepEqual(startedPrompts(id), ['slow answer'], 'nothing started after the stop');
    assert.equal(await headerStatus(page).textContent(), 'Paused', 'the header does not say Running');
    assert.equal(await page.getByRole('button', { name: 'Stop', exact: true }).count(), 0);
    assert.equal(await queuedList(page).getByRole('listitem').count(), 2);

    // Edit in place: Enter saves; the host has the new text, in the same place.
    await page.getByRole('button', { name: 'Edit queued prompt: first follow-up' }).click();
    const editor = page.getByRole('textbox', { name: 'Edit queued prompt' });
    await editor.fill('first, edited');
    await editor.press('Enter');
    await queuedList(page).getByText('first, edited').waitFor();
    assert.deepEqual(
      ui.host.sessions.get(id)!.queue.map((queued) => [queued.prompt, queued.paused]),
      [
        ['first, edited', true],
        ['second follow-up', true],
      ],
    );

    // Remove the second; Run now the first: only it runs, and the session is then idle with an empty queue.
    await page.getByRole('button', { name: 'Remove queued prompt: second follow-up' }).click();
    await page.getByRole('button', { name: 'Remove queued prompt: second follow-up' }).waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Run now: first, edited' }).click();
    await page.locator('.bubble', { hasText: 'first, edited' }).first().waitFor();
    await page.getByRole('button', { name: 'Send' }).waitFor({ timeout: 30_000 });
    assert.equal(await queuedList(page).count(), 0, 'nothing is left in the queue');
    assert.deepEqual(startedPrompts(id), ['slow answer', 'first, edited'], 'the removed prompt never ran');
    assert.equal(await headerStatus(page).textContent(), 'Idle');
    await context.close();
  });

  test('a new send while paused runs first and the paused prompts stay; Resume runs them in order; a reload keeps them paused', async () => {
    const { id, page, context } = await ui.openSession('Resume');
    await stoppedWithQueue(page, ['queued one', 'queued two']);
    await page.getByRole('button', { name: 'Resume queue' }).waitFor();

    await send(page, 'hello instead');
    await page.locator('.bubble', { hasText: 'hello instead' }).first().waitFor();
    await page.getByText('Completed').first().waitFor();
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(startedPrompts(id), ['slow answer', 'hello instead']);
    assert.equal(await headerStatus(page).textContent(), 'Paused');

    await page.reload();
    await queuedList(page).getByText('queued two').waitFor();
    assert.equal(await headerStatus(page).textContent(), 'Paused', 'a reload shows the same paused queue');
    assert.equal((await page.getByText('Paused', { exact: true }).count()) >= 2, true);

    await page.getByRole('button', { name: 'Resume queue' }).click();
    await page.locator('.bubble', { hasText: 'queued two' }).first().waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Send' }).waitFor({ timeout: 30_000 });
    assert.deepEqual(startedPrompts(id), ['slow answer', 'hello instead', 'queued one', 'queued two']);
    assert.equal(await queuedList(page).count(), 0);
    assert.equal(await page.getByText('are paused').count(), 0, 'the composer no longer says they are paused');
    await context.close();
  });

  test('Run now waits while a turn runs: the button says why and is disabled', async () => {
    const { page, context } = await ui.openSession('Run now while running');
    await stoppedWithQueue(page, ['later']);
    await send(page, 'slow answer again');
    await page.getByRole('button', { name: 'Stop', exact: true }).waitFor();
    const runNow = page.getByRole('button', { name: 'Run now: later' });
    assert.equal(await runNow.isDisabled(), true);
    assert.match((await runNow.getAttribute('title')) ?? '', /stop it first/);
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByRole('button', { name: 'Send' }).waitFor();
    await runNow.and(page.locator(':enabled')).waitFor();
    await context.close();
  });
});

describe('accessibility', () => {
  test('the paused queue and its editor are axe-clean in both themes and at 375 px, nothing scrolls sideways', async () => {
    for (const [width, height] of [
      [1280, 860],
      [375, 812],
    ] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const { page, context } = await ui.openSession(`Queue axe ${width} ${colorScheme}`, {
          width,
          height,
          colorScheme,
        });
        await stoppedWithQueue(page, [
          'a queued prompt long enough to be cut off at the width of a phone, so that its text does not fit',
          'another one with an image',
        ]);
        await page.getByRole('button', { name: 'Resume queue' }).waitFor();
        await page.screenshot({ path: `${outputDir}queue-paused-${width}-${colorScheme}.png` });
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
        await check('paused');
        await page.getByRole('button', { name: /^Edit queued prompt: another/ }).click();
        await page.getByRole('textbox', { name: 'Edit queued prompt' }).waitFor();
        await check('editing');
        await page.screenshot({ path: `${outputDir}queue-editing-${width}-${colorScheme}.png` });
        await context.close();
      }
    }
  });
});

import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAxeClean, send, until } from './pageActions.ts';
import { outputDir, startUiHarness, type UiHarness } from './uiHarness.ts';

/*
 * Issue 17's display items in Chromium against the fixture host: background work that ended stays in its
 * panel, folded, with how it ended (also after a reload); a turn the host's stop cut off says the host was
 * stopped. Axe-clean in both themes and at 375 px.
 */

let ui: UiHarness;
before(async () => {
  ui = await startUiHarness();
});
after(async () => {
  await ui?.close();
});

/** At 375 px the panel is a drawer: open it. */
async function showPanel(page: Page): Promise<void> {
  const heading = page.locator('#bg-heading');
  await heading.waitFor({ state: 'attached' });
  if (!(await heading.isVisible())) await page.getByRole('button', { name: 'Show tasks and changes' }).click();
  await heading.waitFor();
}

test('a finished background job stays in its panel, folded, with its outcome; a reload keeps it', async () => {
  const id = await ui.createSession('Jobs', { cwd: '/work/jobs' });
  const { page, context } = await ui.open({ hash: `#/s/${id}` });
  await page.getByRole('heading', { level: 1, name: 'Jobs', exact: true }).waitFor();
  await send(page, 'start a background job');
  const panel = page.locator('.side-panel section[aria-labelledby="bg-heading"]');
  const running = panel.locator('.task-list').first();
  await running.getByText('Count to three').waitFor();
  assert.equal(await panel.locator('.bg-finished').count(), 0, 'nothing has finished yet');

  // The job ends 3 s later: it leaves the running list and stays, folded, under Finished.
  const finished = panel.locator('details.bg-finished');
  await finished.waitFor();
  await panel.getByText('Nothing runs in the background.').waitFor();
  const summary = finished.locator('summary');
  assert.match(((await summary.textContent()) ?? '').replace(/\s+/g, ' '), /Finished 1/);
  assert.equal(await finished.evaluate((element) => (element as HTMLDetailsElement).open), false, 'folded');
  const job = finished.getByRole('list', { name: 'Finished background work' }).locator('li');
  assert.equal(await job.isVisible(), false);
  await summary.click();
  await job.filter({ hasText: 'Count to three' }).filter({ hasText: 'finished' }).waitFor();
  assert.equal(await job.getAttribute('data-outcome'), 'finished');
  await assertAxeClean(page, 'the panel with a finished job, light');
  await panel.screenshot({ path: join(outputDir, 'background-finished-light.png') });

  await page.reload();
  await page.locator('details.bg-finished summary').filter({ hasText: 'Finished' }).waitFor();
  await page.locator('details.bg-finished summary').click();
  await page.getByRole('list', { name: 'Finished background work' }).getByText('Count to three').waitFor();
  await context.close();

  for (const [colorScheme, width] of [
    ['dark', 1280],
    ['light', 375],
    ['dark', 375],
  ] as const) {
    const opened = await ui.open({ hash: `#/s/${id}`, colorScheme, width });
    await opened.page.getByRole('heading', { level: 1, name: 'Jobs', exact: true }).waitFor();
    await showPanel(opened.page);
    const folded = opened.page.locator('details.bg-finished');
    await folded.locator('summary').click();
    await folded.getByText('Count to three').waitFor();
    await assertAxeClean(opened.page, `the finished job, ${colorScheme} at ${width} px`);
    await opened.page.screenshot({ path: join(outputDir, `background-finished-${colorScheme}-${width}.png`) });
    await opened.context.close();
  }
});

test('at 375 px Escape closes the panel drawer and gives the focus back to its button', async () => {
  const id = await ui.createSession('Drawer', { cwd: '/work/drawer' });
  const { page, context } = await ui.open({ hash: `#/s/${id}`, width: 375 });
  try {
    await page.getByRole('heading', { level: 1, name: 'Drawer', exact: true }).waitFor();
    const toggle = page.getByRole('button', { name: 'Show tasks and changes' });
    const panel = page.locator('aside.side-panel');
    await toggle.click();
    await panel.getByRole('button', { name: 'Close the panel' }).focus();
    assert.equal(await panel.getAttribute('data-open'), 'true');
    await page.keyboard.press('Escape');
    await until('the drawer closes', async () => (await panel.getAttribute('data-open')) === 'false');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    assert.equal(await toggle.evaluate((button) => button === document.activeElement), true, 'the focus is back');
  } finally {
    await context.close();
  }
});

/** What the real host records for a turn it cut off as it stopped (`recoverAfterRestart` while stopping). */
function cutOffByStop(sessionId: string): string {
  const session = ui.host.sessions.get(sessionId)!;
  const turnId = `${sessionId}-stopped`;
  const now = Date.now();
  session.emit('turn_started', {
    turnId,
    kind: 'user',
    message: {
      id: session.nextRowId(),
      session_id: sessionId,
      turnId,
      position: 0,
      role: 'user',
      status: 'complete',
      content: [{ type: 'text', text: 'Give me a slow, long answer' }],
      noticeKind: null,
      steer: false,
      clientMessageId: null,
      createdAt: now,
      updatedAt: now,
    },
  });
  const messageId = session.nextRowId();
  session.emit('text', { turnId, messageId, delta: 'This is the slow demo', final: false, interrupted: false });
  session.emit('text', { turnId, messageId, delta: '', final: true, text: 'This is the slow demo', interrupted: true });
  session.emit('done', {
    turnId,
    outcome: 'interrupted',
    error: { message: 'the host was stopped while the turn ran', code: 'host_stopped', apiErrorStatus: null },
  });
  session.publishStatus();
  return turnId;
}

test('a turn the host’s stop cut off says the host was stopped, and what to do next', async () => {
  const id = await ui.createSession('Stopped', { cwd: '/work/stopped' });
  const { page, context } = await ui.open({ hash: `#/s/${id}` });
  await page.getByRole('heading', { level: 1, name: 'Stopped', exact: true }).waitFor();
  cutOffByStop(id);
  const said = page.getByText('Interrupted: the host was stopped while the turn ran');
  await said.waitFor();
  await page.getByText('Send a new prompt; the session resumes.').waitFor();
  assert.equal(await page.getByText(/restarted|crashed/).count(), 0, 'no word of a restart or a crash');
  await page.reload();
  await said.waitFor();
  await assertAxeClean(page, 'the stopped turn, light');
  await context.close();
  for (const [colorScheme, width] of [
    ['dark', 1280],
    ['light', 375],
    ['dark', 375],
  ] as const) {
    const opened = await ui.open({ hash: `#/s/${id}`, colorScheme, width });
    await opened.page.getByText('Interrupted: the host was stopped while the turn ran').waitFor();
    await assertAxeClean(opened.page, `the stopped turn, ${colorScheme} at ${width} px`);
    await opened.page.screenshot({ path: join(outputDir, `host-stopped-${colorScheme}-${width}.png`) });
    await opened.context.close();
  }
});

test('the demo’s first screen offers an edit (its diff) and a background job, one button each', async () => {
  for (const [colorScheme, width] of [
    ['light', 1280],
    ['dark', 1280],
    ['light', 375],
    ['dark', 375],
  ] as const) {
    const id = await ui.createSession(`Demo ${colorScheme} ${width}`, { cwd: `/work/demo-${colorScheme}-${width}` });
    const { page, context } = await ui.open({ hash: `#/s/${id}`, colorScheme, width });
    await page.getByRole('heading', { name: 'Try the demo model' }).waitFor();
    const edit = page.getByRole('button', { name: /Edit a file and show me the diff/ });
    await edit.waitFor();
    await page.getByRole('button', { name: /Start a background job/ }).waitFor();
    await assertAxeClean(page, `the demo prompts, ${colorScheme} at ${width} px`);
    await page.screenshot({ path: join(outputDir, `demo-prompts-${colorScheme}-${width}.png`) });
    if (colorScheme === 'light' && width === 1280) {
      await edit.click();
      // The button sends its prompt, which the demo model answers with its edit.
      await page.locator('.bubble', { hasText: 'Edit a file and show me the diff' }).waitFor();
      await until('the prompt reached the host', () => ui.host.sessions.get(id)!.userTurnIds().length > 0);
      assert.equal(ui.host.sessions.get(id)!.userTurnIds().length, 1);
    }
    await context.close();
  }
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { assertAxeClean, composer, send } from './pageActions.ts';
import { outputDir, startUiHarness, type UiHarness } from './uiHarness.ts';

/*
 * Review and undo in Chromium against the fixture host: a turn's diff from its checkpoints, a rewind with
 * its dry run and its undo, a hunk reverted, and worktree sessions merged, refused for a conflict, kept and
 * discarded. Each session works in a folder of its own, so no test sees another's files.
 */

let ui: UiHarness;
before(async () => {
  ui = await startUiHarness();
});
after(async () => {
  await ui?.close();
});

/** A session in its own folder whose edits need no approval (the approval flow is tested in ui.test.ts). */
async function openSession(
  title: string,
  cwd: string,
  options: Parameters<UiHarness['open']>[0] & { worktree?: boolean } = {},
) {
  const id = await ui.createSession(title, { cwd, worktree: options.worktree });
  ui.host.sessions.get(id)!.allowedForSession.add('Edit');
  const opened = await ui.open({ ...options, hash: `#/s/${id}` });
  await opened.page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
  return { id, ...opened };
}

/** Sends the edit script and waits for its turn card to say what it changed. */
async function editTurn(page: Page, nth = 0): Promise<Locator> {
  await send(page, 'edit the greeting');
  await page.locator('.outcome.completed').nth(nth).waitFor();
  // The card of the turn just done is the last one with changes.
  const toggle = page.locator('.turn-changes-toggle').last();
  await toggle.filter({ hasText: '6 files changed' }).waitFor();
  return toggle;
}

const fileText = (id: string, path: string) => ui.host.sessions.get(id)!.checkpoints.files.get(path)?.text;
const eventsOf = (id: string, type: string) => ui.host.sessions.get(id)!.log.filter((event) => event.type === type);

describe('a turn’s diff', () => {
  test('N files changed, each with its status, and a file’s hunks; a file made by a command is in the session’s diff', async () => {
    const { page, context } = await openSession('Turn diff', '/work/review-diff');
    const toggle = await editTurn(page);
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    await toggle.click();
    const files = page.getByRole('list', { name: 'Files this turn changed' });
    const rows = files.locator(':scope > li');
    assert.equal(await rows.count(), 6);
    const row = (path: string) => files.getByRole('button', { name: new RegExp(path.replace(/[.*/]/g, '\\$&')) });
    await row('notes/todo.md').filter({ hasText: 'added' }).waitFor();
    await row('build.log').filter({ hasText: 'deleted' }).waitFor();
    await row('docs/setup.md → docs/install.md').filter({ hasText: 'renamed' }).waitFor();
    await row('assets/logo.png').filter({ hasText: 'binary' }).waitFor();
    await row('scripts/build.sh').filter({ hasText: 'now executable' }).waitFor();
    await row('assets/logo.png').click();
    await page.getByText('A binary file: its content is not shown.').waitFor();
    await row('src/greet.ts').click();
    const revertHunk = page.getByRole('button', { name: /^Revert hunk \d .* of src\/greet\.ts$/ });
    await revertHunk.nth(2).waitFor();
    assert.equal(await revertHunk.count(), 3, 'three hunks, each with its revert');
    assert.deepEqual(await page.locator('.turn-changes .hunk-range').allTextContents(), [
      '@@ -1,4 +1,4 @@',
      '@@ -7,9 +7,9 @@',
      '@@ -27,4 +27,4 @@',
    ]);
    await page.locator('.turn-changes .diff-code-insert', { hasText: "export const greeting = 'Hello';" }).waitFor();
    await page.locator('.turn-changes .diff-code-delete', { hasText: "export const greeting = 'Helo';" }).waitFor();
    // The Edit call shows one file; the session's diff (its checkpoints) has the command's too.
    await page
      .getByRole('list', { name: 'Files changed in this session' })
      .getByRole('button', { name: /notes\/todo\.md/ })
      .waitFor();
    await page.screenshot({ path: `${outputDir}review-turn-diff.png`, fullPage: true });
    await context.close();
  });

  test('a checkpoint that fails is a quiet line on the card; the turn still completes', async () => {
    const { page, context } = await openSession('No git', '/work/no-git');
    await send(page, 'edit the greeting');
    await page.locator('.outcome.completed').waitFor();
    await page.locator('.turn-changes-note', { hasText: 'No diff for this turn: git is not installed' }).waitFor();
    assert.equal(await page.locator('.outcome.failed').count(), 0);
    await page
      .locator('.side-panel')
      .getByText(/No diffs in this session: git is not installed/)
      .waitFor();
    await context.close();
  });
});

describe('rewind', () => {
  test('the dry run lists each file, applying it rewinds the files and the card says so, and Undo rewind takes it back', async () => {
    const { id, page, context } = await openSession('Rewind', '/work/review-rewind');
    await editTurn(page);
    assert.equal(fileText(id, 'src/greet.ts')?.includes("'Hello'"), true);
    await page.getByRole('button', { name: 'Rewind…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rewind to before “edit the greeting”' });
    const plan = dialog.getByRole('list', { name: 'Files the rewind will change' });
    await plan.locator('li').nth(5).waitFor();
    assert.equal(await plan.locator('li').count(), 6);
    await plan.locator('li', { hasText: 'build.log' }).filter({ hasText: 'restored' }).waitFor();
    await plan.locator('li', { hasText: 'notes/todo.md' }).filter({ hasText: 'removed' }).waitFor();
    assert.equal(eventsOf(id, 'files_rewound').length, 0, 'the preview changed nothing');
    assert.equal(fileText(id, 'src/greet.ts')?.includes("'Hello'"), true);
    await page.screenshot({ path: `${outputDir}review-rewind-dialog.png` });
    await dialog.getByRole('button', { name: 'Rewind files' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page
      .getByRole('status')
      .filter({ hasText: 'Files rewound to before this turn (6 files changed).' })
      .waitFor();
    assert.equal(eventsOf(id, 'files_rewound').length, 1);
    assert.equal(fileText(id, 'src/greet.ts')?.includes("'Helo'"), true, 'the file is as before the turn');
    assert.equal(fileText(id, 'notes/todo.md'), undefined, 'the file the command made is gone');
    await page.locator('.side-panel').getByText('No file changed yet.').waitFor();
    await page.getByRole('button', { name: 'Undo rewind' }).click();
    await page.getByRole('status').filter({ hasText: 'Rewind undone' }).waitFor();
    assert.equal(eventsOf(id, 'files_rewound').length, 2);
    assert.equal(fileText(id, 'src/greet.ts')?.includes("'Hello'"), true, 'the undo put the turn’s work back');
    await page.getByRole('list', { name: 'Files changed in this session' }).locator('li').nth(5).waitFor();
    await context.close();
  });

  test('Conversation forks at the turn before; while a turn runs the rewind waits and says why', async () => {
    const { page, context } = await openSession('Rewind talk', '/work/review-talk');
    await send(page, 'think about it');
    await page.locator('.outcome.completed').waitFor();
    await editTurn(page, 1);
    await send(page, 'a slow answer please');
    await page.locator('.streaming-caret').waitFor();
    // By keyboard: a button that waits stays focusable, and the transcript scrolls with the stream (a pointer
    // click would wait for it to hold still).
    await page.getByRole('button', { name: 'Rewind…' }).nth(1).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'A turn is running: wait for it to end.' }).waitFor();
    assert.equal(await page.getByRole('dialog').count(), 0, 'no rewind while a turn runs');
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByText('Stopped by you').waitFor();
    await page.getByRole('button', { name: 'Rewind…' }).nth(1).click();
    const dialog = page.getByRole('dialog', { name: /Rewind to before/ });
    await dialog.getByRole('radio', { name: /Conversation/ }).check();
    await dialog.getByText('A new session continues from after “think about it”.').waitFor();
    await dialog.getByRole('button', { name: 'Start from before' }).click();
    await page.getByRole('heading', { level: 1, name: 'Rewind talk (rewound)' }).waitFor();
    await page.locator('.outcome.completed').waitFor();
    assert.equal(await page.locator('.item[data-kind="user"]').count(), 1, 'only the turn before is in the fork');
    await context.close();
  });

  test('Both, from the first turn: the files go back and a new session starts in the same folder', async () => {
    const { id, page, context } = await openSession('Rewind both', '/work/review-both');
    await editTurn(page);
    await page.getByRole('button', { name: 'Rewind…' }).click();
    const dialog = page.getByRole('dialog', { name: /Rewind to before/ });
    await dialog.getByRole('radio', { name: /Both/ }).check();
    await dialog.getByText('A new session starts in /work/review-both: this was the first turn.').waitFor();
    await dialog.getByRole('list', { name: 'Files the rewind will change' }).waitFor();
    await dialog.getByRole('button', { name: 'Rewind both' }).click();
    await page.getByRole('heading', { level: 1, name: 'Rewind both (rewound)' }).waitFor();
    assert.equal(eventsOf(id, 'files_rewound').length, 1);
    assert.equal(fileText(id, 'src/greet.ts')?.includes("'Helo'"), true);
    const fresh = [...ui.host.sessions.values()].find((session) => session.detail.title === 'Rewind both (rewound)')!;
    assert.equal(fresh.detail.cwd, '/work/review-both');
    assert.equal(fresh.detail.forkedFrom, null, 'before the first turn there is nothing to fork');
    await composer(page).waitFor();
    await context.close();
  });

  test('a 409 from the host is said in the dialog', async () => {
    const { page, context } = await openSession('Refused rewind', '/work/review-refused');
    await editTurn(page);
    await page.route('**/rewind', async (route) => {
      const body = route.request().postDataJSON() as { dryRun?: boolean };
      if (body.dryRun === true) return route.continue();
      return route.fulfill({
        status: 409,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'conflict', message: 'a turn is running; rewind once it has ended' } }),
      });
    });
    await page.getByRole('button', { name: 'Rewind…' }).click();
    const dialog = page.getByRole('dialog', { name: /Rewind to before/ });
    await dialog.getByRole('list', { name: 'Files the rewind will change' }).waitFor();
    await dialog.getByRole('button', { name: 'Rewind files' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'a turn is running; rewind once it has ended' }).waitFor();
    await context.close();
  });
});

describe('revert', () => {
  test('reverting one hunk takes only that hunk out of the session’s diff; in a turn’s diff it is marked reverted', async () => {
    const { id, page, context } = await openSession('Revert', '/work/review-revert');
    await editTurn(page);
    await page
      .getByRole('list', { name: 'Files changed in this session' })
      .getByRole('button', { name: /src\/greet\.ts/ })
      .click();
    const dialog = page.getByRole('dialog', { name: 'src/greet.ts' });
    const hunks = dialog.locator('.hunk-range');
    await hunks.nth(2).waitFor();
    await dialog.locator('.diff-code-insert', { hasText: 'lines.push(greet(name));' }).waitFor();
    await page.screenshot({ path: `${outputDir}review-file-dialog.png` });
    await dialog.getByRole('button', { name: /^Revert hunk 2 / }).click();
    await dialog.getByRole('status').filter({ hasText: 'Hunk 2 reverted.' }).waitFor();
    await hunks.nth(2).waitFor({ state: 'detached' });
    assert.deepEqual(await hunks.allTextContents(), ['@@ -1,4 +1,4 @@', '@@ -27,4 +27,4 @@']);
    assert.equal(await dialog.locator('.diff-code-insert', { hasText: 'lines.push(greet(name));' }).count(), 0);
    await dialog.locator('.diff-code-insert', { hasText: "export const greeting = 'Hello';" }).waitFor();
    await dialog.locator('.diff-code-insert', { hasText: "export const defaultName = 'world';" }).waitFor();
    const text = fileText(id, 'src/greet.ts') ?? '';
    assert.ok(text.includes('lines.push(greet(name))\n'), 'the hunk is undone in the file');
    assert.ok(text.includes("'Hello'") && text.includes("'world';"), 'the other hunks stay');
    await dialog.getByRole('button', { name: 'Close' }).click();

    // The turn's diff is history: its hunk stays, marked, once it is reverted from there.
    await page.locator('.turn-changes-toggle').click();
    await page
      .getByRole('list', { name: 'Files this turn changed' })
      .getByRole('button', { name: /src\/greet\.ts/ })
      .click();
    await page.getByRole('button', { name: /^Revert hunk 3 .* of src\/greet\.ts$/ }).click();
    await page.locator('.turn-changes .hunk-header.undone').filter({ hasText: 'Reverted' }).waitFor();
    assert.equal(await page.locator('.turn-changes .hunk-range').count(), 3);
    assert.ok(fileText(id, 'src/greet.ts')?.includes('defaultName = "world"\n'));
    await context.close();
  });
});

describe('worktrees', () => {
  test('New session in a worktree: a folder outside a repository is refused at the field; a merge goes into main', async () => {
    const { page, context } = await ui.open();
    await page.getByRole('button', { name: 'New session' }).click();
    const dialog = page.getByRole('dialog', { name: 'New session' });
    await dialog.getByRole('combobox', { name: 'Working directory' }).fill('/tmp/scratch');
    await dialog.getByRole('textbox', { name: /Name/ }).fill('Worktree merge');
    await dialog.getByRole('checkbox', { name: 'Run in a new git worktree' }).check();
    await dialog.getByRole('button', { name: 'Create session' }).click();
    const fieldError = dialog.locator('#new-session-worktree-error');
    await fieldError.filter({ hasText: 'not a git repository' }).waitFor();
    assert.equal(
      await dialog.getByRole('checkbox', { name: 'Run in a new git worktree' }).getAttribute('aria-invalid'),
      'true',
    );
    await dialog.getByRole('combobox', { name: 'Working directory' }).fill('/work/review-worktree');
    await dialog.getByRole('button', { name: 'Create session' }).click();
    await page.getByRole('heading', { level: 1, name: 'Worktree merge' }).waitFor();
    const id = [...ui.host.sessions.values()].find((session) => session.detail.title === 'Worktree merge')!.id;
    const branch = ui.host.sessions.get(id)!.detail.worktree?.branch ?? '';
    assert.match(branch, /^outrigger\/worktree-merge/);
    await page.locator('.topbar .branch', { hasText: branch }).waitFor();
    ui.host.sessions.get(id)!.allowedForSession.add('Edit');
    await editTurn(page);
    const panel = page.getByRole('region', { name: 'Worktree' });
    await panel.getByText('6 files changed against main').waitFor();
    await panel.getByRole('button', { name: 'Merge into main' }).click();
    await panel.getByRole('status').filter({ hasText: 'Merged into main (a fast-forward).' }).waitFor();
    await panel.getByText('Nothing changed against main').waitFor();
    assert.notEqual(ui.host.sessions.get(id)!.detail.worktree?.mergedCommit, null);
    await panel.getByRole('button', { name: 'Keep branch, remove worktree' }).click();
    await panel.getByText(`Kept: the branch ${branch} stays`).waitFor();
    await page.getByText('This session is closed').waitFor();
    await context.close();
  });

  test('a merge that conflicts lists the file and changes nothing; Discard asks first and closes the session', async () => {
    const { id, page, context } = await openSession('Worktree conflict', '/work/review-conflict', { worktree: true });
    await editTurn(page);
    const panel = page.getByRole('region', { name: 'Worktree' });
    await panel.getByRole('button', { name: 'Merge into main' }).click();
    const alert = panel.getByRole('alert');
    await alert.filter({ hasText: 'The merge would conflict; nothing was changed.' }).waitFor();
    assert.deepEqual(await alert.locator('li').allTextContents(), ['src/greet.ts']);
    assert.equal(ui.host.sessions.get(id)!.detail.worktree?.mergedCommit, null);
    assert.equal(ui.host.sessions.get(id)!.detail.worktree?.state, 'active');
    await page.screenshot({ path: `${outputDir}review-worktree-conflict.png` });
    await panel.getByRole('button', { name: 'Discard…' }).click();
    const confirm = page.getByRole('dialog', { name: 'Discard this worktree?' });
    await confirm.getByText('This cannot be undone.').waitFor();
    await confirm.getByRole('button', { name: 'Discard worktree' }).click();
    await panel.getByText('Discarded: the worktree and its branch were removed').waitFor();
    await page.getByText('This session is closed').waitFor();
    assert.equal(ui.host.sessions.get(id)!.detail.worktree?.state, 'discarded');
    await context.close();
  });
});

describe('review layout and accessibility', () => {
  test('the rewind dialog, a file’s diff, the worktree panel and the discard dialog are axe-clean in both themes, wide and at 375 px', async () => {
    for (const width of [1280, 375]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const label = `${colorScheme} ${width} px`;
        const cwd = `/work/review-axe-${colorScheme}-${width}`;
        const { page, context } = await openSession(`Axe ${label}`, cwd, {
          colorScheme,
          width,
          height: width === 375 ? 812 : 860,
          worktree: true,
        });
        await editTurn(page);
        await page.locator('.turn-changes-toggle').click();
        await page
          .getByRole('list', { name: 'Files this turn changed' })
          .getByRole('button', { name: /src\/greet\.ts/ })
          .click();
        await page.locator('.turn-changes .hunk-range').nth(2).waitFor();
        await assertAxeClean(page, `${label}: a turn's diff`);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${label}: the page is ${overflow} px wider than the screen`);

        await page.getByRole('button', { name: 'Rewind…' }).click();
        const rewind = page.getByRole('dialog', { name: /Rewind to before/ });
        await rewind.getByRole('list', { name: 'Files the rewind will change' }).waitFor();
        await assertAxeClean(page, `${label}: the rewind dialog`);
        await page.screenshot({ path: `${outputDir}review-rewind-${colorScheme}-${width}.png` });
        await rewind.getByRole('button', { name: 'Cancel' }).click();
        await rewind.waitFor({ state: 'detached' });

        if (width === 375) await page.getByRole('button', { name: 'Show tasks and changes' }).click();
        const worktree = page.getByRole('region', { name: 'Worktree' });
        await worktree.getByRole('button', { name: 'Merge into main' }).waitFor();
        await assertAxeClean(page, `${label}: the worktree panel`);
        await page.screenshot({ path: `${outputDir}review-panel-${colorScheme}-${width}.png` });
        await page
          .getByRole('list', { name: 'Files changed in this session' })
          .getByRole('button', { name: /src\/greet\.ts/ })
          .click();
        const diff = page.getByRole('dialog', { name: 'src/greet.ts' });
        await diff.locator('.hunk-range').nth(2).waitFor();
        await assertAxeClean(page, `${label}: a file's diff dialog`);
        await page.screenshot({ path: `${outputDir}review-file-${colorScheme}-${width}.png` });
        await diff.getByRole('button', { name: 'Close' }).click();
        await diff.waitFor({ state: 'detached' });

        await worktree.getByRole('button', { name: 'Discard…' }).click();
        const discard = page.getByRole('dialog', { name: 'Discard this worktree?' });
        await discard.waitFor();
        await assertAxeClean(page, `${label}: the discard dialog`);
        await discard.getByRole('button', { name: 'Cancel' }).click();
        await context.close();
      }
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { fixtureHistory } from '../fixtureHost/fakeHistory.ts';
import { assertAxeClean, composer } from './pageActions.ts';
import { outputDir, startUiHarness, type UiHarness } from './uiHarness.ts';

/*
 * Claude Code's history (issue 19) in Chromium against the fixture host: the list grouped by folder, searched,
 * grown live by `history_changed`, virtualized at 2,000 sessions; a transcript read with a live session's cards
 * (a diff, a subagent's nested call, thinking) and its notes, paged, without a composer; Continue (resume lands in
 * the new session, its history above it "Earlier, in Claude Code"), a session in use (Fork, or Continue anyway
 * after the host's `history_in_use`), one already continued (a link), one whose folder is gone (disabled, why);
 * the terminal command copied; the outside-changes card. Axe-clean in both themes at 1280 and 375 px.
 */

let ui: UiHarness;
before(async () => {
  ui = await startUiHarness();
});
after(async () => {
  await ui?.close();
});

const historyHash = (id: string) => `#/history/${id}`;
const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true });

/** Records what the page copies (the clipboard's own read needs a permission prompt headless Chromium lacks). */
function recordCopies() {
  Object.defineProperty(navigator, 'clipboard', {
    value: {
      writeText: async (text: string) => {
        (window as unknown as { copied: string[] }).copied = [
          ...((window as unknown as { copied?: string[] }).copied ?? []),
          text,
        ];
      },
    },
  });
}

async function continueVia(sessionId: string, mode: 'resume' | 'fork') {
  const response = await fetch(`${ui.host.url}/api/history/${sessionId}/continue`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mode }),
  });
  assert.equal(response.status, 201);
  return ((await response.json()) as { id: string }).id;
}

describe('the history list', () => {
  test('grouped by folder, searched, a folder that is gone marked, the hidden ones explained; a new terminal session appears live', async () => {
    const { page, context } = await ui.open({ hash: '#/history' });
    await heading(page, 'Claude Code history').waitFor();
    const projects = page.locator('.history-project');
    await projects.first().waitFor();
    const folders = await page.locator('.history-cwd').allInnerTexts();
    assert.deepEqual(folders, ['/work/project', '/work/api', '/work/old-prototype']);
    await projects.filter({ hasText: '/work/old-prototype' }).getByText('Folder gone').waitFor();
    await page.getByText('3 sessions are not listed').waitFor();
    const rich = page.locator('.history-session', { hasText: 'Add a --json flag to the CLI' });
    await rich.getByText('feature/json').waitFor();
    await rich.getByText('7 messages').waitFor();
    await page
      .locator('.history-session', { hasText: 'Refactor the config loader' })
      .getByText('Active just now')
      .waitFor();

    // Folding a project hides its sessions.
    await projects.filter({ hasText: '/work/api' }).getByRole('button').click();
    await page.locator('.history-session', { hasText: 'Paginate the list endpoint' }).waitFor({ state: 'detached' });
    await projects.filter({ hasText: '/work/api' }).getByRole('button').click();
    await page.locator('.history-session', { hasText: 'Paginate the list endpoint' }).waitFor();

    const search = page.getByRole('searchbox', { name: 'Search Claude Code history' });
    await search.fill('json');
    await page.getByText('1 session in 1 folder match').waitFor();
    assert.deepEqual(await page.locator('.history-title').allInnerTexts(), ['Add a --json flag to the CLI']);
    await search.fill('fix/flaky');
    await page.getByText('1 session in 1 folder match').waitFor();
    assert.deepEqual(await page.locator('.history-title').allInnerTexts(), ['Long investigation of the flaky test']);
    await search.fill('');
    await page.getByText('5 sessions in 3 folders').waitFor();

    ui.host.history.add('Written in a terminal just now');
    await page.locator('.history-session', { hasText: 'Written in a terminal just now' }).waitFor();
    await page.getByText('6 sessions in 3 folders').waitFor();
    await page.screenshot({ path: `${outputDir}history-list.png` });

    // Until the host's first index is complete, the list says it is still filling in.
    ui.host.history.indexState = 'indexing';
    ui.host.history.add('Read while indexing');
    await page.getByText('Reading Claude Code’s transcripts for the first time').waitFor();
    ui.host.history.indexState = 'ready';
    ui.host.history.add('Read once indexed');
    await page.getByText('Reading Claude Code’s transcripts for the first time').waitFor({ state: 'detached' });

    await page.locator('.history-session', { hasText: 'Add a --json flag to the CLI' }).click();
    await heading(page, 'Add a --json flag to the CLI').waitFor();
    assert.equal(new URL(page.url()).hash, historyHash(fixtureHistory.rich));
    await context.close();
  });
});

describe('a transcript', () => {
  test('reads with a live session’s cards: thinking, text, a subagent with its nested call, a diff; the notes above; no composer', async () => {
    const { page, context } = await ui.open({ hash: historyHash(fixtureHistory.rich) });
    await heading(page, 'Add a --json flag to the CLI').waitFor();
    const notes = page.getByRole('region', { name: 'About this transcript' });
    await notes.getByText('2 lines of the transcript could not be read').waitFor();
    await notes.getByText('1 tool output was longer').waitFor();
    await page.locator('.msg-user .bubble', { hasText: 'Add a --json flag to the CLI' }).waitFor();
    await page.getByText(/Thought for/).waitFor();
    await page.getByText('I will find where output is written first.').waitFor();
    const agent = page.locator('.tool', { has: page.locator('.tool-name', { hasText: 'Agent' }) }).first();
    await agent.locator('.tool-children .tool-name', { hasText: 'Grep' }).waitFor();
    const edit = page.locator('.tool', { has: page.locator('.tool-name', { hasText: 'Edit' }) }).first();
    await edit.locator('.tool-head').click();
    await edit.locator('.diff-code-insert', { hasText: "args.includes('--json')" }).waitFor();
    assert.equal(await composer(page).count(), 0, 'no composer');
    assert.equal(await page.locator('.msg-actions').count(), 0, 'no Edit or Retry under the prompt');
    await page.getByRole('button', { name: 'Continue in Outrigger' }).waitFor();
    await page.screenshot({ path: `${outputDir}history-transcript.png` });
    await context.close();
  });

  test('a long one pages older rows in as the conversation does', async () => {
    const { page, context } = await ui.open({ hash: historyHash(fixtureHistory.long) });
    await heading(page, 'Long investigation of the flaky test').waitFor();
    await page.getByText('Answer 124').waitFor();
    // Reaching the top pages the older rows in, as the conversation does: 250 rows in pages of 100.
    const first = page.getByText('Question 0', { exact: true });
    for (let tries = 0; (await first.count()) === 0; tries++) {
      assert.ok(tries < 100, 'the first row came in');
      await page.locator('#transcript').evaluate((element) => element.scrollTo(0, 0));
      await page.waitForTimeout(100);
    }
    assert.equal(await page.getByRole('button', { name: 'Load earlier messages' }).count(), 0, 'nothing older');
    await page.getByText('Question 0', { exact: true }).waitFor();
    await context.close();
  });
});

describe('continue in Outrigger', () => {
  test('resume lands in the new session; its history shows above its turns, marked; the terminal command copies', async () => {
    const { page, context } = await ui.open({ hash: historyHash(fixtureHistory.rich), beforeLoad: recordCopies });
    await page.getByRole('button', { name: 'Continue in Outrigger' }).click();
    const dialog = page.getByRole('dialog', { name: 'Continue in Outrigger' });
    assert.equal(await dialog.getByRole('radio', { name: /Resume/ }).isChecked(), true, 'resume by default');
    await page.screenshot({ path: `${outputDir}history-continue.png` });
    await dialog.getByRole('button', { name: 'Resume' }).click();
    await page.waitForURL(/#\/s\/s\d+$/);
    const sessionId = decodeURIComponent(new URL(page.url()).hash.slice('#/s/'.length));
    await heading(page, 'Add a --json flag to the CLI').waitFor();
    assert.equal(ui.host.history.session(fixtureHistory.rich).outriggerSessionId, sessionId);
    assert.deepEqual(ui.host.sessions.get(sessionId)?.detail.continuedFrom, {
      claudeSessionId: fixtureHistory.rich,
      mode: 'resume',
      rows: 7,
    });

    await page.getByText('Earlier, in Claude Code').waitFor();
    assert.equal(await page.getByText('Added the').count(), 0, 'folded until opened');
    await page.getByRole('button', { name: 'Show the earlier conversation' }).click();
    await page.locator('.markdown', { hasText: 'prints JSON' }).waitFor();
    await page.getByText('Continued in Outrigger').waitFor();
    await page
      .locator('.tool', { has: page.locator('.tool-name', { hasText: 'Agent' }) })
      .locator('.tool-children')
      .waitFor();

    await page.getByRole('button', { name: 'Open in terminal' }).click();
    const terminal = page.getByRole('dialog', { name: 'Open in terminal' });
    const command = `cd /work/project && claude --resume p-${sessionId}`;
    await terminal.getByText(command).waitFor();
    await terminal.getByText('Claude Code has no lock').waitFor();
    await page.screenshot({ path: `${outputDir}history-terminal.png` });
    await terminal.getByRole('button', { name: 'Copy the command' }).click();
    await terminal.getByRole('button', { name: 'Copied' }).waitFor();
    assert.deepEqual(await page.evaluate(() => (window as unknown as { copied?: string[] }).copied), [command]);
    await context.close();
  });

  test('a session in use offers Fork first; Fork leaves the original to the terminal', async () => {
    const { page, context } = await ui.open({ hash: historyHash(fixtureHistory.inUse) });
    await page.getByRole('button', { name: 'Continue in Outrigger' }).click();
    const dialog = page.getByRole('dialog', { name: 'Continue in Outrigger' });
    await dialog.getByText('This session may be open in a terminal.').waitFor();
    await dialog.getByText(/two writers interleave/).waitFor();
    await dialog.getByRole('button', { name: 'Continue anyway' }).waitFor();
    await dialog.getByRole('button', { name: 'Fork' }).click();
    await page.waitForURL(/#\/s\/s\d+$/);
    const sessionId = decodeURIComponent(new URL(page.url()).hash.slice('#/s/'.length));
    assert.equal(ui.host.sessions.get(sessionId)?.detail.continuedFrom?.mode, 'fork');
    assert.equal(ui.host.history.session(fixtureHistory.inUse).outriggerSessionId, null, 'the original is not taken');
    await context.close();
  });

  test('the host’s history_in_use is answered the same way; Continue anyway resumes it', async () => {
    const { page, context } = await ui.open({ hash: historyHash(fixtureHistory.long) });
    await heading(page, 'Long investigation of the flaky test').waitFor();
    ui.host.history.touch(fixtureHistory.long);
    await page.getByRole('button', { name: 'Continue in Outrigger' }).click();
    const dialog = page.getByRole('dialog', { name: 'Continue in Outrigger' });
    await dialog.getByRole('button', { name: 'Resume' }).click();
    await dialog.getByText('This session may be open in a terminal.').waitFor();
    await dialog.getByRole('button', { name: 'Continue anyway' }).click();
    await page.waitForURL(/#\/s\/s\d+$/);
    const sessionId = decodeURIComponent(new URL(page.url()).hash.slice('#/s/'.length));
    assert.equal(ui.host.history.session(fixtureHistory.long).outriggerSessionId, sessionId);
    await context.close();
  });

  test('one already continued links to its session, from the list’s state or from the host’s refusal', async () => {
    const existing = await continueVia(fixtureHistory.continued, 'resume');
    const { page, context } = await ui.open({ hash: historyHash(fixtureHistory.continued) });
    const link = page.locator('.history-continue').getByRole('link', { name: 'Open in Outrigger' });
    assert.equal(await link.getAttribute('href'), `#/s/${existing}`);

    const fresh = ui.host.history.add('Continued behind this page’s back', '/work/api');
    await page.goto(`${ui.host.url}/${historyHash(fresh)}`);
    await page.getByRole('button', { name: 'Continue in Outrigger' }).waitFor();
    const other = await continueVia(fresh, 'resume');
    await page.getByRole('button', { name: 'Continue in Outrigger' }).click();
    const dialog = page.getByRole('dialog', { name: 'Continue in Outrigger' });
    await dialog.getByRole('button', { name: 'Resume' }).click();
    const open = dialog.getByRole('link', { name: 'Open in Outrigger' });
    await open.waitFor();
    assert.equal(await open.getAttribute('href'), `#/s/${other}`);
    await open.click();
    await page.waitForURL(new RegExp(`#/s/${other}$`));
    await context.close();
  });

  test('a folder that is gone: Continue is disabled, and says why', async () => {
    const { page, context } = await ui.open({ hash: historyHash(fixtureHistory.gone) });
    const button = page.getByRole('button', { name: 'Continue in Outrigger' });
    await button.waitFor();
    assert.equal(await button.isDisabled(), true);
    await page.locator('.history-continue').getByText('/work/old-prototype no longer exists').waitFor();
    await context.close();
  });
});

describe('outside Outrigger', () => {
  test('messages the session got in a terminal show as their own card, not as an error', async () => {
    const { id, page, context } = await ui.openSession('Went on in a terminal');
    const session = ui.host.sessions.get(id)!;
    session.emit('notice', {
      turnId: 't-outside',
      message: {
        id: `${id}-outside`,
        session_id: id,
        turnId: 't-outside',
        position: 1,
        role: 'system',
        status: 'complete',
        content: [
          {
            type: 'text',
            text: 'The conversation went on outside Outrigger (in a terminal, or another program): 2 new messages. The next turn continues from them.\n\n› run the linter\n\nThe linter found **no** problems.',
          },
        ],
        noticeKind: 'outside_changes',
        steer: false,
        clientMessageId: null,
        createdAt: Date.now(),
        updatedAt: Date.now(),
      },
    });
    const card = page.getByRole('region', { name: 'Continued outside Outrigger' });
    await card.locator('.bubble', { hasText: 'run the linter' }).waitFor();
    await card.locator('strong', { hasText: 'no' }).waitFor();
    assert.equal(await page.locator('.notice.error').count(), 0);
    await page.screenshot({ path: `${outputDir}history-outside.png` });
    await context.close();
  });
});

describe('a large history', () => {
  test('2,000 sessions: only the lines in view are in the page', async () => {
    // 5 fixture sessions, 3 added by the list's test, 1 by the refusal's, and these.
    ui.host.history.seed(2000);
    const { page, context } = await ui.open({ hash: '#/history' });
    await page.getByText(/^20\d\d sessions in 4\d folders$/).waitFor();
    const mounted = await page.locator('.history-session').count();
    assert.ok(mounted > 5 && mounted < 120, `${mounted} session lines mounted`);
    await page.locator('.history-scroll').evaluate((element) => element.scrollTo(0, element.scrollHeight));
    await page.getByText('Generated session 1999').waitFor();
    await context.close();
  });
});

describe('accessibility', () => {
  test('the list, a transcript, the continue dialog, the terminal command and a continued session are axe-clean in both themes at 1280 and 375 px; nothing scrolls sideways', async () => {
    const continued = await continueVia(fixtureHistory.inUse, 'fork');
    for (const [width, height] of [
      [1280, 860],
      [375, 812],
    ] as const)
      for (const colorScheme of ['light', 'dark'] as const) {
        const what = `${width} px ${colorScheme}`;
        const { page, context } = await ui.open({ width, height, colorScheme, hash: '#/history' });
        await page.locator('.history-session').first().waitFor();
        await assertAxeClean(page, `the list, ${what}`);
        await assertNoSidewaysScroll(page, `the list, ${what}`);

        await page.goto(`${ui.host.url}/${historyHash(fixtureHistory.rich)}`);
        await page.locator('.tool-children').first().waitFor();
        await page
          .locator('.tool', { has: page.locator('.tool-name', { hasText: 'Edit' }) })
          .locator('.tool-head')
          .click();
        await page.locator('.diff-code-insert').first().waitFor();
        await assertAxeClean(page, `a transcript, ${what}`);
        await assertNoSidewaysScroll(page, `a transcript, ${what}`);

        await page.goto(`${ui.host.url}/${historyHash(fixtureHistory.inUse)}`);
        await page.getByRole('button', { name: 'Continue in Outrigger' }).click();
        await page
          .getByRole('dialog', { name: 'Continue in Outrigger' })
          .getByRole('button', { name: 'Fork' })
          .waitFor();
        await assertAxeClean(page, `the continue dialog (in use), ${what}`);

        await page.goto(`${ui.host.url}/#/s/${continued}`);
        await page.getByRole('button', { name: 'Show the earlier conversation' }).click();
        await page.getByText('Continued in Outrigger').waitFor();
        await assertAxeClean(page, `a continued session, ${what}`);
        await page.getByRole('button', { name: 'Open in terminal' }).click();
        await page.getByRole('dialog', { name: 'Open in terminal' }).waitFor();
        await assertAxeClean(page, `the terminal command, ${what}`);
        await context.close();
      }
  });
});

async function assertNoSidewaysScroll(page: Page, what: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${what}: the page scrolls sideways by ${overflow} px`);
}

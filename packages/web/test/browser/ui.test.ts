import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { exfilHost } from '../fixtureHost/turnScripts.ts';
import { composer, send } from './pageActions.ts';
import { outputDir, seriousViolations, startUiHarness, type UiHarness } from './uiHarness.ts';

/*
 * Component-level tests of the built UI in Chromium, against the fixture host (the contract in
 * memory with scripted turns). The same flows against the real host, sidecar and Claude Code live
 * in test/e2e once the host serves the UI.
 */

let ui: UiHarness;
before(async () => {
  ui = await startUiHarness();
});
after(async () => {
  await ui?.close();
});

const rowsOfKind = (page: Page, kind: string) => page.locator(`.item[data-kind="${kind}"]`);

describe('chat', () => {
  test('a streamed markdown answer renders tables and highlighted code, and raw HTML only as text', async () => {
    const { page, context } = await ui.openSession('Markdown');
    await send(page, 'show me markdown');
    await page.getByRole('table').waitFor();
    await page.getByText('Completed').waitFor();
    await page.locator('.shiki-token').first().waitFor();
    assert.equal(await page.locator('.transcript script, .transcript b').count(), 0);
    await page.getByText('<script>alert(1)</script>', { exact: false }).waitFor();
    assert.equal(await rowsOfKind(page, 'user').count(), 1);
    await page.screenshot({ path: `${outputDir}markdown.png` });
    await context.close();
  });

  test('Stop mid-stream: the answer is marked cut off, the footer says stopped, Send is back', async () => {
    const { page, context } = await ui.openSession('Stop');
    await send(page, 'a slow answer please');
    await page.getByRole('button', { name: 'Stop', exact: true }).waitFor();
    await page.locator('.streaming-caret').waitFor();
    await composer(page).press('Escape');
    await page.getByText('Stopped by you').waitFor();
    await page.getByText('Cut off: this answer was interrupted').waitFor();
    await page.getByRole('button', { name: 'Send' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Stopped.' }).waitFor();
    assert.equal(await page.locator('.outcome.completed').count(), 0);
    await context.close();
  });

  test('queue and steer while a turn runs; a removed chip cancels its queued turn', async () => {
    const { id, page, context } = await ui.openSession('Queue');
    await send(page, 'slow answer');
    await page.getByRole('button', { name: 'Steer now' }).waitFor();
    await composer(page).fill('first follow-up');
    await page.getByRole('button', { name: 'Queue', exact: true }).click();
    await composer(page).fill('second follow-up');
    await composer(page).press('Enter');
    const chips = page.getByRole('list', { name: 'Queued prompts' }).getByRole('listitem');
    await chips.nth(1).waitFor();
    await page.getByRole('button', { name: 'Remove queued prompt: first follow-up' }).click();
    await page.getByRole('button', { name: 'Remove queued prompt: first follow-up' }).waitFor({ state: 'detached' });
    await composer(page).fill('also mention durability');
    await page.getByRole('button', { name: 'Steer now' }).click();
    await page
      .locator('.bubble', { hasText: 'also mention durability' })
      .locator('.tag', { hasText: 'steered' })
      .waitFor();
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    // Stop must stop: the queued prompt is paused (queue.test.ts); it runs once the person resumes the queue.
    await page.getByRole('button', { name: 'Resume queue' }).click();
    await page.locator('.bubble', { hasText: 'second follow-up' }).waitFor();
    await page.getByText('Completed').waitFor();
    const session = ui.host.sessions.get(id)!;
    const started = session.log.filter((event) => event.type === 'turn_started');
    assert.equal(started.length, 2, 'the removed prompt never ran');
    await context.close();
  });

  test('a reload mid-stream shows the same transcript, once', async () => {
    const { page, context } = await ui.openSession('Reload');
    await send(page, 'a long, slow answer please');
    await page.locator('.streaming-caret').waitFor();
    await page.reload();
    await page.locator('.streaming-caret').waitFor();
    assert.equal(await rowsOfKind(page, 'user').count(), 1);
    assert.equal(await rowsOfKind(page, 'text').count(), 1);
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByText('Stopped by you').waitFor();
    assert.equal(await rowsOfKind(page, 'text').count(), 1);
    assert.equal(await page.locator('.bubble.pending').count(), 0);
    await context.close();
  });

  test('a send whose answer is lost on the network is retried with its id: one turn, one bubble', async () => {
    const { id, page, context } = await ui.openSession('Exactly once');
    let lost = 0;
    await page.route('**/api/sessions/*/turns', async (route) => {
      if (lost === 0) {
        lost += 1;
        await route.fetch(); // the host takes it…
        await route.abort('connectionreset'); // …and the answer never arrives
        return;
      }
      await route.continue();
    });
    await send(page, 'think once');
    await page.getByText('Completed').waitFor();
    const session = ui.host.sessions.get(id)!;
    assert.equal(session.log.filter((event) => event.type === 'turn_started').length, 1);
    assert.equal(await rowsOfKind(page, 'user').count(), 1);
    assert.equal(await page.locator('.bubble.pending').count(), 0);
    await context.close();
  });

  test('a reply cannot make the browser fetch: an image is a link to open, a javascript: link is inert', async () => {
    const { page, context, problems } = await ui.openSession('Exfiltration');
    await send(page, 'show me the usage chart');
    await page.locator('.outcome.completed').waitFor();
    assert.equal(await page.locator('.transcript img').count(), 0, 'no <img> from model text');
    const image = page.locator('.transcript').getByRole('link', { name: /^Image: the usage chart/ });
    assert.equal(await image.getAttribute('href'), `http://${exfilHost}/collect?d=secret-token`);
    assert.equal(await image.getAttribute('rel'), 'noopener noreferrer nofollow');
    assert.equal(await image.getAttribute('target'), '_blank');
    assert.ok((await image.textContent())?.includes(`(${exfilHost})`), 'the link names where it points');
    const harmless = page.locator('.transcript').getByText('a harmless-looking link');
    assert.equal(await harmless.evaluate((element) => element.closest('a[href]')), null, 'the javascript: link');
    await harmless.click();
    const docs = page.locator('.transcript').getByRole('link', { name: 'the docs' });
    assert.equal(await docs.getAttribute('href'), 'https://example.com/docs');
    assert.equal(await docs.getAttribute('rel'), 'noopener noreferrer nofollow');
    const seen = await problems.read();
    assert.deepEqual(
      seen.requests.filter((url) => url.includes(exfilHost)),
      [],
      'requests to the host named in the reply',
    );
    assert.deepEqual(seen.violations, [], 'nothing even tried what the policy refuses');
    assert.equal(context.pages().length, 1, 'no window opened');
    await context.close();
  });

  test('a draft survives a reload; a session switch keeps each draft', async () => {
    const otherId = await ui.createSession('Other drafts');
    const { id, page, context } = await ui.openSession('Drafts');
    const heading = (title: string) => page.getByRole('heading', { level: 1, name: title, exact: true });
    const switchTo = async (title: string, sessionId: string) => {
      await page.getByRole('navigation', { name: 'Sessions' }).locator(`a[href$="${sessionId}"]`).click();
      await heading(title).waitFor();
    };
    await composer(page).fill('half a thought');
    await page.reload();
    await heading('Drafts').waitFor();
    assert.equal(await composer(page).inputValue(), 'half a thought');
    await switchTo('Other drafts', otherId);
    assert.equal(await composer(page).inputValue(), '', 'a draft stays with its session');
    await composer(page).fill('another idea');
    await switchTo('Drafts', id);
    assert.equal(await composer(page).inputValue(), 'half a thought');
    await switchTo('Other drafts', otherId);
    assert.equal(await composer(page).inputValue(), 'another idea');
    await context.close();
  });
});

describe('prompts', () => {
  test('allow once, then allow for the session: the same command then runs without a prompt', async () => {
    const { page, context } = await ui.openSession('Approvals');
    await send(page, 'run a command');
    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.getByText('Allowed once.').waitFor();
    await page.getByText('Completed').waitFor();
    await send(page, 'run it again');
    await page.getByRole('button', { name: 'Allow for this session' }).click();
    await page.getByText(/^Allowed for this session: this exact command/).waitFor();
    await page.locator('.outcome.completed').nth(1).waitFor();
    await send(page, 'run a third time');
    await page.locator('.outcome.completed').nth(2).waitFor();
    assert.equal(await page.locator('.prompt').count(), 0);
    assert.equal(await page.getByText(/^Allowed for this session: /).count(), 1);
    await context.close();
  });

  test('deny with a message: the message reaches the agent', async () => {
    const { id, page, context } = await ui.openSession('Deny');
    await send(page, 'run a command');
    await page.getByRole('button', { name: 'Deny…' }).click();
    await page.getByRole('textbox', { name: 'Reason for denying' }).fill('not on this machine');
    await page.getByRole('button', { name: 'Deny', exact: true }).click();
    await page.getByText('Denied: not on this machine').waitFor();
    await page.getByText('the command did not run').waitFor();
    const resolved = ui.host.sessions.get(id)!.log.find((event) => event.type === 'permission_resolved');
    assert.deepEqual(resolved?.type === 'permission_resolved' && resolved.data.answer?.payload, {
      denyMessage: 'not on this machine',
    });
    await context.close();
  });

  test('a question is a form: one choice, several choices with Other…, answers keyed by question id', async () => {
    const { id, page, context } = await ui.openSession('Question');
    await send(page, 'ask me something');
    await page.getByRole('radio', { name: /PostgreSQL/ }).check();
    await page.getByRole('checkbox', { name: 'A cache' }).check();
    await page.getByRole('textbox', { name: 'Other answer to: Which extras should it have?' }).fill('tracing');
    await page.screenshot({ path: `${outputDir}question.png` });
    await page.getByRole('button', { name: 'Send answer' }).click();
    await page.getByText('You chose PostgreSQL.').waitFor();
    const resolved = ui.host.sessions.get(id)!.log.find((event) => event.type === 'permission_resolved');
    assert.deepEqual(resolved?.type === 'permission_resolved' && resolved.data.answer?.payload, {
      answersByQuestionId: { 'q-database': 'PostgreSQL', 'q-extras': ['A cache', 'tracing'] },
    });
    await context.close();
  });

  test('a plan is rendered with its mode choices', async () => {
    const { page, context } = await ui.openSession('Plan mode');
    await send(page, 'approve my exit');
    await page.getByRole('heading', { name: 'Plan', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Go ahead, accept file edits' }).click();
    await page.getByText('Plan approved; starting now.').waitFor();
    await page
      .getByRole('combobox', { name: 'Mode', exact: true })
      .filter({ has: page.locator('option:checked', { hasText: 'Accept edits' }) })
      .waitFor();
    // Opened after a reload, the plan's card shows the plan as text, not its raw input.
    await page.reload();
    const card = page.locator('.tool', { has: page.locator('.tool-name', { hasText: 'ExitPlanMode' }) });
    await card.locator('.tool-head').first().click();
    await card.locator('.plan-body').getByText('Add a /health route.').waitFor();
    assert.doesNotMatch(
      (await card.locator('.tool-body').first().textContent()) ?? '',
      /"plan"|\\n/,
      'not the raw input',
    );
    await context.close();
  });

  test('a prompt answered in a second tab closes in the first, and leaves the inbox', async () => {
    const { id, page, context } = await ui.openSession('Two tabs');
    await send(page, 'run a command');
    await page.getByRole('button', { name: 'Allow', exact: true }).waitFor();
    const second = await ui.open({ hash: '#/inbox' });
    const inboxLink = second.page.getByRole('main').getByRole('link', { name: 'Two tabs' });
    await inboxLink.waitFor();
    assert.match((await second.page.title()) ?? '', /^\(\d+\) Outrigger$/);
    await second.page
      .locator('.inbox-item', { has: second.page.getByRole('link', { name: 'Two tabs' }) })
      .getByRole('button', { name: 'Allow', exact: true })
      .click();
    await page.getByText('Allowed once.').waitFor();
    assert.equal(await page.locator('.prompt').count(), 0);
    await inboxLink.waitFor({ state: 'detached' });
    assert.equal(ui.host.sessions.get(id)!.log.filter((e) => e.type === 'permission_resolved').length, 1);
    await second.context.close();
    await context.close();
  });

  test('a settings change shows at once, before the host confirms it; a refused one snaps back and says why', async () => {
    const { page, context } = await ui.openSession('Settings');
    // The one mode control (issue 17: plan mode is one of its modes, not a second switch).
    const mode = page.getByRole('combobox', { name: 'Mode', exact: true });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/settings', async (route) => {
      await held;
      await route.continue();
    });
    await mode.selectOption('plan');
    assert.equal(await mode.inputValue(), 'plan', 'plan mode shows while the host has not answered');
    release();
    await page.waitForResponse('**/settings');
    assert.equal(await mode.inputValue(), 'plan');
    await page.unroute('**/settings');
    await page.route('**/settings', (route) =>
      route.fulfill({
        status: 409,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'session_closed', message: 'the session is closed' } }),
      }),
    );
    await mode.selectOption('acceptEdits');
    await page.getByRole('alert').filter({ hasText: 'the session is closed' }).waitFor();
    assert.equal(await mode.inputValue(), 'plan', 'a refused change shows what still holds');
    await context.close();
  });
});

describe('tools, tasks, fork', () => {
  test('an Edit is shown as a diff', async () => {
    const { page, context } = await ui.openSession('Edit');
    await send(page, 'edit the greeting');
    await page.locator('.diff-wrap .diff-code-delete').first().waitFor();
    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.getByText('Fixed the typo.').waitFor();
    await page.getByRole('button', { name: /Edit.*greet\.ts/ }).click();
    await page.locator('.tool-body .diff-code-insert', { hasText: "'Hello'" }).waitFor();
    // The panel lists the session's diff (its checkpoints), by path in the working directory.
    await page
      .getByRole('list', { name: 'Files changed in this session' })
      .getByText('src/greet.ts', { exact: true })
      .waitFor();
    await context.close();
  });

  test('the plan advances in the task panel next to a user task that the plan never touches', async () => {
    const { page, context } = await ui.openSession('Tasks');
    await page.getByRole('textbox', { name: 'New task' }).fill('Write the changelog');
    await page.getByRole('button', { name: 'Add task' }).click();
    await page.getByRole('checkbox', { name: 'Done: Write the changelog' }).waitFor();
    await send(page, 'make a plan');
    // The plan shows beside the user task (the step in progress reads as its active form, so only
    // the panel's count is checked while it advances).
    await page.getByRole('progressbar', { name: 'Tasks done' }).and(page.locator('[aria-valuemax="4"]')).waitFor();
    await page.getByText('All three steps are done.').waitFor();
    await page.getByRole('progressbar', { name: 'Tasks done' }).and(page.locator('[aria-valuenow="3"]')).waitFor();
    await page.locator('.side-panel').getByText('Read the project layout').waitFor();
    await page.getByRole('checkbox', { name: 'Done: Write the changelog' }).check();
    await page.getByRole('progressbar', { name: 'Tasks done' }).and(page.locator('[aria-valuenow="4"]')).waitFor();
    await context.close();
  });

  test('a subagent’s calls nest under its Agent card; long output opens in full on demand', async () => {
    const { page, context } = await ui.openSession('Agent');
    await send(page, 'explore with an agent');
    await page.getByText('The subagent found 22 routes.').waitFor();
    await page.locator('.tool .tool-children .tool-name', { hasText: 'Grep' }).waitFor();
    await send(page, 'show test output');
    await page.getByText('All 60 tests pass.').waitFor();
    await page.getByRole('button', { name: /Bash.*npm test/ }).click();
    await page.getByRole('button', { name: /Show all/ }).click();
    await page.locator('.mono-block', { hasText: 'ok 60 - test number 60' }).first().waitFor();
    await context.close();
  });

  test('compaction notices, and background work shown while it runs after the turn ended', async () => {
    const { page, context } = await ui.openSession('Background');
    await send(page, 'compact please');
    await page.getByRole('note').filter({ hasText: 'Conversation compacted' }).waitFor();
    await send(page, 'start a background job');
    await page.locator('.outcome.completed').nth(1).waitFor();
    const panel = page.locator('.side-panel');
    await panel.getByText('Count to three').waitFor();
    await page.getByText('Runs in the background', { exact: true }).waitFor();
    await panel.getByText('Nothing runs in the background.').waitFor();
    await page.getByText('Ran in the background · completed').waitFor();
    await context.close();
  });

  test('an attached image is sent with the prompt and shown in the bubble', async () => {
    const { page, context } = await ui.openSession('Image');
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      'base64',
    );
    await page.locator('input[type="file"]').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: png });
    await page.getByRole('list', { name: 'Attached images' }).getByText('dot.png').waitFor();
    await page
      .locator('input[type="file"]')
      .setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('x') });
    await page.getByRole('alert').filter({ hasText: 'notes.txt is not a PNG' }).waitFor();
    await send(page, 'what is in this picture?');
    // The bytes went to the host and come back from its attachment route: a 1×1 image.
    await page.waitForFunction(() => {
      const image = document.querySelector<HTMLImageElement>('.bubble img');
      return image?.complete === true && image.naturalWidth === 1;
    });
    await context.close();
  });

  test('fork from the first turn opens a new session with that turn only', async () => {
    const { page, context } = await ui.openSession('Fork source');
    await send(page, 'think about it');
    await page.locator('.outcome.completed').waitFor();
    await send(page, 'markdown');
    await page.locator('.outcome.completed').nth(1).waitFor();
    await page.getByRole('button', { name: 'Fork from here' }).first().click();
    await page.getByRole('heading', { name: /\(fork\)/ }).waitFor();
    await page.locator('.outcome.completed').waitFor();
    assert.equal(await rowsOfKind(page, 'user').count(), 1);
    assert.equal(await page.getByRole('table').count(), 0);
    await context.close();
  });

  test('a closed session says Closed in the header and the list, and its composer offers a fork', async () => {
    const { page, context } = await ui.openSession('To close');
    await send(page, 'think about it');
    await page.locator('.outcome.completed').waitFor();
    await page.getByRole('button', { name: 'Actions for To close' }).click();
    await page.getByRole('menuitem', { name: 'Close session…' }).click();
    await page
      .getByRole('dialog', { name: 'Close “To close”?' })
      .getByRole('button', { name: 'Close session' })
      .click();
    await page.locator('.topbar .status').filter({ hasText: 'Closed' }).waitFor();
    assert.equal(await page.locator('.topbar .status').textContent(), 'Closed');
    assert.equal(await page.locator('.session-item[data-current="true"] .status').textContent(), 'Closed');
    await page.getByText('This session is closed').waitFor();
    assert.equal(await composer(page).count(), 0);
    await page.getByRole('button', { name: 'Fork from the last turn' }).click();
    await page.getByRole('heading', { level: 1, name: 'To close (fork)' }).waitFor();
    await composer(page).waitFor();
    assert.equal(await page.locator('.topbar .status').textContent(), 'Idle');
    await context.close();
  });

  test('a fork the host refuses says why beside its button, and the button works again', async () => {
    const { page, context } = await ui.openSession('Refused fork');
    await send(page, 'think about it');
    await page.locator('.outcome.completed').waitFor();
    await page.route('**/fork', (route) =>
      route.fulfill({
        status: 409,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'conflict', message: 'nothing to fork at' } }),
      }),
    );
    await page.getByRole('button', { name: 'Fork from here' }).click();
    await page.getByRole('alert').filter({ hasText: 'Could not fork: nothing to fork at' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Fork from here' }).isEnabled(), true);
    await page.getByRole('heading', { level: 1, name: 'Refused fork', exact: true }).waitFor();
    await context.close();
  });
});

describe('layout and accessibility', () => {
  test('no serious or critical axe violations on the main screens, in both themes', async () => {
    const id = await ui.createSession('Axe');
    await fetch(`${ui.host.url}/api/sessions/${id}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'run a command' }),
    });
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const hash of [`#/s/${id}`, '#/inbox', '']) {
        const { page, context } = await ui.open({ colorScheme, hash });
        await page.waitForTimeout(600);
        const violations = await seriousViolations(page);
        assert.deepEqual(
          violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
          [],
          `${colorScheme} ${hash || 'home'}`,
        );
        await context.close();
      }
    }
  });

  test('at 375 px nothing scrolls sideways; the sidebar is a drawer', async () => {
    const { page, context } = await ui.openSession('Phone', { width: 375, height: 812 });
    await send(page, 'markdown');
    await page.getByText('Completed').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `the page is ${overflow} px wider than the screen`);
    assert.equal(await page.getByRole('navigation', { name: 'Sessions' }).isVisible(), false);
    await page.getByRole('button', { name: 'Open the session list' }).click();
    await page.getByRole('navigation', { name: 'Sessions' }).waitFor();
    await page.screenshot({ path: `${outputDir}phone-drawer.png` });
    await context.close();
  });

  test('keyboard: every control is named, focus moves, Ctrl+K jumps to a session', async () => {
    const { page, context } = await ui.openSession('Keyboard');
    await send(page, 'run a command');
    await page.getByRole('button', { name: 'Allow', exact: true }).waitFor();
    const unnamed = await page.evaluate(() =>
      [...document.querySelectorAll('button, a[href], input, select, textarea')]
        .filter((element) => {
          const el = element as HTMLElement;
          if (el.offsetParent === null) return false;
          const label =
            el.getAttribute('aria-label') ??
            (el.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null) ??
            el.closest('label')?.textContent ??
            el.textContent;
          return (label ?? '').trim() === '';
        })
        .map((element) => element.outerHTML.slice(0, 80)),
    );
    assert.deepEqual(unnamed, []);
    await composer(page).focus();
    await page.keyboard.press('Shift+Tab');
    const focused = await page.evaluate(() => document.activeElement?.tagName);
    assert.ok(focused !== 'BODY');
    await ui.createSession('Elsewhere');
    await page.keyboard.press('Control+k');
    await page.getByRole('combobox', { name: 'Session name or folder' }).fill('elsewh');
    // The session was created over the API; Enter only jumps once its row has reached this tab.
    await page.getByRole('option', { name: /Elsewhere/, selected: true }).waitFor();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Elsewhere' }).waitFor();
    await context.close();
  });
});

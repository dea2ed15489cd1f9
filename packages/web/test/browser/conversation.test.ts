import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { send, until } from './pageActions.ts';
import { outputDir, seriousViolations, startUiHarness, type UiHarness } from './uiHarness.ts';

/*
 * The conversation's scrolling and re-runs in Chromium against the fixture host: following the newest
 * content at the bottom, keeping the place (with Jump to latest and a count) when scrolled up, a send
 * bringing the person to their message, a waiting session opening at its card; Edit of a sent prompt and
 * Retry of the last turn, each a fork from just before the prompt.
 */

let ui: UiHarness;
before(async () => {
  ui = await startUiHarness();
});
after(async () => {
  await ui?.close();
});

const jump = (page: Page) => page.getByRole('button', { name: /^Jump to latest/ });

const doneCount = (id: string) => ui.host.sessions.get(id)!.log.filter((event) => event.type === 'done').length;

/** A prompt over the API (not the page's composer): content arriving from elsewhere, as a turn's output does. */
async function postTurn(id: string, prompt: string): Promise<void> {
  const response = await fetch(`${ui.host.url}/api/sessions/${id}/turns`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt }),
  });
  assert.equal(response.status, 202, await response.text());
}

async function turnOver(id: string, prompt: string): Promise<void> {
  const before = doneCount(id);
  await postTurn(id, prompt);
  await until(`the turn "${prompt}" to end`, () => doneCount(id) > before);
}

async function openLong(rows: number, options: Parameters<UiHarness['open']>[0] = {}) {
  const session = ui.host.seedLongSession(rows);
  const opened = await ui.open({ ...options, hash: `#/s/${session.id}` });
  await opened.page.getByRole('heading', { level: 1, name: session.detail.title, exact: true }).waitFor();
  await opened.page.locator('.item[data-kind="user"]').first().waitFor();
  return { id: session.id, ...opened };
}

/** How far the transcript is from its end, in pixels. */
const fromEnd = (page: Page) =>
  page.locator('#transcript').evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight);

/** Scrolls the transcript as a person does (a wheel upward), then waits for the scroll to land. */
async function wheelUp(page: Page, pixels: number): Promise<void> {
  const box = (await page.locator('#transcript').boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -pixels);
  await page.waitForTimeout(250);
}

/** The first user message whose top is in view, and that top relative to the transcript's top. */
async function firstVisibleUser(page: Page): Promise<{ text: string; top: number }> {
  return page.locator('#transcript').evaluate((scroller) => {
    const frame = scroller.getBoundingClientRect();
    for (const bubble of scroller.querySelectorAll<HTMLElement>('.item[data-kind="user"] .bubble')) {
      const top = bubble.getBoundingClientRect().top - frame.top;
      if (top >= 0) return { text: bubble.textContent ?? '', top };
    }
    throw new Error('no user message in view');
  });
}

/** The element is wholly inside the transcript's visible frame. */
async function inView(target: Locator): Promise<boolean> {
  return target.evaluate((element) => {
    const scroller = element.closest('#transcript');
    if (scroller === null) return false;
    const frame = scroller.getBoundingClientRect();
    const box = element.getBoundingClientRect();
    return box.top >= frame.top - 1 && box.bottom <= frame.bottom + 1;
  });
}

describe('following the conversation', () => {
  test('scrolled up, new content keeps the place and shows Jump to latest with a count; the jump follows again', async () => {
    const { id, page, context } = await openLong(60);
    await until('the view at the end', async () => (await fromEnd(page)) < 2);
    assert.equal(await jump(page).count(), 0, 'at the bottom there is nothing to jump to');
    await wheelUp(page, 900);
    await jump(page).waitFor();
    await page.getByRole('button', { name: 'Jump to latest' }).waitFor();
    const place = await firstVisibleUser(page);

    await turnOver(id, 'hello from elsewhere');
    // The user message, the answer (the footer is not counted): two new items.
    await page.getByRole('button', { name: 'Jump to latest 2 new items below' }).waitFor();
    await page.getByRole('status').filter({ hasText: '2 new items below' }).waitFor();
    const kept = await firstVisibleUser(page);
    assert.equal(kept.text, place.text, 'the same message is at the top');
    assert.ok(Math.abs(kept.top - place.top) <= 2, `it did not move: ${place.top} → ${kept.top} px`);
    await page.screenshot({ path: `${outputDir}conversation-jump-to-latest.png` });

    await jump(page).click();
    await until('the view at the end after the jump', async () => (await fromEnd(page)) < 2);
    await page.getByText('hello from elsewhere').waitFor();
    assert.equal(await jump(page).count(), 0);
    await context.close();
  });

  test('at the bottom a streaming answer is followed: the view stays at the end as it grows', async () => {
    const { id, page, context } = await openLong(40);
    await until('the view at the end', async () => (await fromEnd(page)) < 2);
    await postTurn(id, 'a slow answer please');
    await page.locator('.streaming-caret').waitFor();
    const heightBefore = await page.locator('#transcript').evaluate((element) => element.scrollHeight);
    // Sampled each frame for 2.5 s of streaming: what a person would see.
    const samples = await page.locator('#transcript').evaluate(
      (element) =>
        new Promise<number[]>((resolve) => {
          const out: number[] = [];
          const end = performance.now() + 2500;
          const frame = () => {
            out.push(element.scrollHeight - element.scrollTop - element.clientHeight);
            if (performance.now() < end) requestAnimationFrame(frame);
            else resolve(out);
          };
          requestAnimationFrame(frame);
        }),
    );
    const heightAfter = await page.locator('#transcript').evaluate((element) => element.scrollHeight);
    assert.ok(heightAfter > heightBefore + 40, `the answer grew (${heightBefore} → ${heightAfter} px)`);
    const sorted = [...samples].sort((a, b) => a - b);
    const max = sorted.at(-1)!;
    const atEnd = samples.filter((sample) => sample < 2).length / samples.length;
    process.stdout.write(
      `# follow while streaming: ${samples.length} frames, ${Math.round(atEnd * 100)} % at the end, max ${Math.round(max)} px from it\n`,
    );
    assert.ok(max <= 40, `never more than a line behind the end (max ${max} px)`);
    assert.ok(atEnd >= 0.9, `at the end in ${Math.round(atEnd * 100)} % of frames`);
    assert.equal(await jump(page).count(), 0, 'following never stopped');
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByText('Stopped by you').waitFor();
    await context.close();
  });

  test('scrolled up, a streaming answer below does not move the view', async () => {
    const { id, page, context } = await openLong(40);
    await until('the view at the end', async () => (await fromEnd(page)) < 2);
    await wheelUp(page, 700);
    const place = await firstVisibleUser(page);
    const heightBefore = await page.locator('#transcript').evaluate((element) => element.scrollHeight);
    await postTurn(id, 'a slow answer please');
    // The answer streams out of sight (its row is not even mounted): the host says it runs.
    await until('the turn to run', () => ui.host.sessions.get(id)!.running !== null);
    await page.waitForTimeout(1500);
    const heightAfter = await page.locator('#transcript').evaluate((element) => element.scrollHeight);
    assert.ok(heightAfter > heightBefore, `content grew below (${heightBefore} → ${heightAfter} px)`);
    const kept = await firstVisibleUser(page);
    assert.equal(kept.text, place.text);
    assert.ok(Math.abs(kept.top - place.top) <= 2, `it did not move: ${place.top} → ${kept.top} px`);
    await jump(page).filter({ hasText: 'new' }).waitFor();
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await until('the turn to stop', () => ui.host.sessions.get(id)!.running === null);
    await context.close();
  });

  test('older rows paged in above keep the message in view where it was', async () => {
    const { page, context } = await openLong(300);
    await until('the view at the end', async () => (await fromEnd(page)) < 2);
    const before = await page.locator('.item').count();
    const firstIndexBefore = await page.locator('.item').first().getAttribute('data-index');
    // Up to a few screens below the top (the automatic load starts within 200 px of it).
    await page.locator('#transcript').evaluate((element) => {
      element.scrollTop = 600;
    });
    await page.waitForTimeout(200);
    const place = await firstVisibleUser(page);
    // Clicked without scrolling to it, as a click on it once it was in view would be.
    await page.locator('.older button').evaluate((button) => (button as HTMLButtonElement).click());
    await until('the older rows', async () => {
      const count = await page.locator('#transcript').evaluate((element) => element.querySelectorAll('.item').length);
      const index = await page.locator('.item').first().getAttribute('data-index');
      return count !== before || index !== firstIndexBefore;
    });
    await page.waitForTimeout(300);
    const kept = await firstVisibleUser(page);
    assert.equal(kept.text, place.text, 'the same message is at the top');
    assert.ok(Math.abs(kept.top - place.top) <= 2, `it did not move: ${place.top} → ${kept.top} px`);
    await context.close();
  });

  test('sending while scrolled up brings the person to their message', async () => {
    const { page, context } = await openLong(60);
    await until('the view at the end', async () => (await fromEnd(page)) < 2);
    await wheelUp(page, 1500);
    await jump(page).waitFor();
    await send(page, 'where did my message go');
    const message = page.locator('.item[data-kind="user"] .bubble', { hasText: 'where did my message go' });
    await message.waitFor();
    await until('the message in view', () => inView(message));
    const lastUser = await page.locator('.item[data-kind="user"] .bubble').last().textContent();
    assert.equal(lastUser, 'where did my message go');
    assert.equal(await jump(page).count(), 0);
    await page.getByText('Completed').last().waitFor();
    await context.close();
  });

  test('opening a session that waits for an answer brings its card into view and focuses it', async () => {
    const id = await ui.createSession('Waiting');
    for (let turn = 1; turn <= 8; turn++) await turnOver(id, `hello number ${turn}`);
    await postTurn(id, 'run a command please');
    await until('the approval', () => ui.host.sessions.get(id)!.pending.size === 1);
    const { page, context } = await ui.open({ hash: `#/s/${id}`, height: 700 });
    const card = page.getByRole('region', { name: /needs you/ });
    await card.waitFor();
    await until('the card in view', () => inView(page.locator('section.prompt')));
    await until('the card focused', () =>
      page.evaluate(() => document.activeElement?.matches('section.prompt') ?? false),
    );
    assert.equal(await jump(page).count(), 0, 'the card is at the end: the view stays there, following');
    await page.screenshot({ path: `${outputDir}conversation-waiting-card.png` });
    await card.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.getByText('Completed').last().waitFor();
    await context.close();
  });
});

async function twoTurns(title: string, options: Parameters<UiHarness['open']>[0] = {}) {
  const id = await ui.createSession(title);
  const opened = await ui.open({ ...options, hash: `#/s/${id}` });
  const { page } = opened;
  await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
  await send(page, 'hello one');
  await until('the first turn', () => doneCount(id) === 1);
  await send(page, 'hello two');
  await until('the second turn', () => doneCount(id) === 2);
  await page.locator('.outcome.completed').nth(1).waitFor();
  return { id, ...opened };
}

const userTexts = (page: Page) => page.locator('.item[data-kind="user"] .bubble').allTextContents();
const sessionIdOf = (page: Page) => decodeURIComponent(new URL(page.url()).hash.replace(/^#\/s\//, ''));

describe('edit and retry', () => {
  test('Edit a sent prompt: Esc cancels; Ctrl+Enter opens a fork from just before it with the edited text', async () => {
    const { id, page, context } = await twoTurns('Edit me');
    const edits = page.getByRole('button', { name: 'Edit prompt' });
    assert.equal(await edits.count(), 2, 'each prompt can be edited');
    await edits.nth(1).click();
    const editor = page.getByRole('textbox', { name: 'Edited prompt' });
    assert.equal(await editor.inputValue(), 'hello two');
    assert.equal(await editor.evaluate((element) => element === document.activeElement), true, 'focused');
    await editor.press('Escape');
    await editor.waitFor({ state: 'detached' });
    assert.deepEqual(await userTexts(page), ['hello one', 'hello two']);
    assert.equal(await page.getByRole('button', { name: 'Stop' }).count(), 0, 'Esc stopped nothing');
    await until('focus back on Edit', () =>
      page.evaluate(() => document.activeElement?.textContent?.includes('Edit prompt') ?? false),
    );

    await edits.nth(1).click();
    await editor.fill('hello edited');
    await page.screenshot({ path: `${outputDir}conversation-edit.png` });
    await editor.press('Control+Enter');
    await page.getByRole('heading', { level: 1, name: 'Edit me (edited)', exact: true }).waitFor();
    const forkId = sessionIdOf(page);
    assert.notEqual(forkId, id);
    const fork = ui.host.sessions.get(forkId)!;
    const source = ui.host.sessions.get(id)!;
    const firstTurn = source.log.find((event) => event.type === 'done')!.data.turnId;
    assert.deepEqual(fork.detail.forkedFrom, { sessionId: id, turnId: firstTurn }, 'forked at the turn before');
    await until('the edited turn to end', () => doneCount(forkId) === 2);
    await page.locator('.outcome.completed').nth(1).waitFor();
    assert.deepEqual(await userTexts(page), ['hello one', 'hello edited']);
    assert.equal(doneCount(id), 2, 'the source session is as it was');
    await context.close();
  });

  test('Edit the first prompt: a new session in the same folder runs the edited text', async () => {
    const { id, page, context } = await twoTurns('Edit first');
    await page.getByRole('button', { name: 'Edit prompt' }).first().click();
    const editor = page.getByRole('textbox', { name: 'Edited prompt' });
    await editor.fill('hello from the start');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit first (edited)', exact: true }).waitFor();
    const newId = sessionIdOf(page);
    assert.equal(ui.host.sessions.get(newId)!.detail.forkedFrom, null);
    assert.equal(ui.host.sessions.get(newId)!.detail.cwd, ui.host.sessions.get(id)!.detail.cwd);
    await until('its turn', () => doneCount(newId) === 1);
    assert.deepEqual(await userTexts(page), ['hello from the start']);
    await context.close();
  });

  test('Retry runs the last prompt again in a fork from just before it; the old answer stays in the source', async () => {
    const { id, page, context } = await twoTurns('Retry me');
    const retry = page.getByRole('button', { name: 'Retry the last turn' });
    assert.equal(await retry.count(), 1, 'only the last turn is retried');
    const lastUser = page.locator('.item[data-kind="user"]').last();
    assert.equal(await lastUser.getByRole('button', { name: 'Retry the last turn' }).count(), 1);
    await retry.click();
    await page.getByRole('heading', { level: 1, name: 'Retry me (retry)', exact: true }).waitFor();
    const forkId = sessionIdOf(page);
    await until('the retried turn to end', () => doneCount(forkId) === 2);
    await page.locator('.outcome.completed').nth(1).waitFor();
    assert.deepEqual(await userTexts(page), ['hello one', 'hello two']);
    const fork = ui.host.sessions.get(forkId)!;
    const prompts = fork.log
      .filter((event) => event.type === 'turn_started')
      .map((event) => (event.data as { message?: { content: { text?: string }[] } }).message?.content[0]?.text);
    assert.deepEqual(prompts, ['hello one', 'hello two'], 'the copied turn, then the prompt run again');
    assert.equal(doneCount(id), 2, 'the source keeps its answer');
    await context.close();
  });

  test('Retry is not offered while a turn runs', async () => {
    const { id, page, context } = await twoTurns('No retry while running');
    await postTurn(id, 'a slow answer please');
    await page.getByRole('button', { name: 'Stop', exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Retry the last turn' }).count(), 0);
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByText('Stopped by you').waitFor();
    await page.getByRole('button', { name: 'Retry the last turn' }).waitFor();
    await context.close();
  });
});

describe('accessibility', () => {
  test('Jump to latest, the message actions and the editor are axe-clean in both themes and at 375 px', async () => {
    for (const [width, height] of [
      [1280, 860],
      [375, 812],
    ] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const { id, page, context } = await twoTurns(`Axe ${width} ${colorScheme}`, { width, height, colorScheme });
        for (let turn = 3; turn <= 6; turn++) await turnOver(id, `hello number ${turn}`);
        await until('the view at the end', async () => (await fromEnd(page)) < 2);
        await wheelUp(page, 600);
        await turnOver(id, 'one more');
        await jump(page).filter({ hasText: 'new' }).waitFor();
        await page.getByRole('button', { name: 'Edit prompt' }).first().click();
        await page.getByRole('textbox', { name: 'Edited prompt' }).waitFor();
        const violations = await seriousViolations(page);
        assert.deepEqual(
          violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
          [],
          `${colorScheme} at ${width} px`,
        );
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.equal(overflow, 0, 'nothing scrolls sideways');
        await page.screenshot({ path: `${outputDir}conversation-${width}-${colorScheme}.png` });
        await context.close();
      }
    }
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hostPolicyMissing } from './hostPolicy.ts';
import { send } from './pageActions.ts';
import { outputDir, startUiHarness, type UiHarness } from './uiHarness.ts';

/*
 * The built UI under the host's Content-Security-Policy (sent by the fixture host, read from the host
 * package): everything it does on a normal page — the theme before first paint, streamed markdown, lazily
 * loaded shiki grammars, the diff view — must work without the policy refusing anything.
 */

let ui: UiHarness;
before(async () => {
  if (hostPolicyMissing === false) ui = await startUiHarness();
});
after(async () => {
  await ui?.close();
});

/**
 * Runs in the page before its scripts: stores the dark theme and notes, in order, when `data-theme` is set
 * on <html> and when the app first renders into #root, so the test can tell the theme script from the
 * app's own effect (which sets the same attribute, but only after mounting).
 */
function storeDarkThemeAndWatch(): void {
  localStorage.setItem('outrigger.theme', 'dark');
  const order: string[] = [];
  (window as unknown as { __order: string[] }).__order = order;
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === 'attributes' && record.target === document.documentElement) order.push('theme');
      if (record.type === 'childList' && (record.target as Element).id === 'root' && record.addedNodes.length > 0)
        order.push('mount');
    }
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-theme'] });
}

describe('the UI under the host’s Content-Security-Policy', { skip: hostPolicyMissing }, () => {
  test('the host’s policy is on every response, and the theme script is a same-origin file', async () => {
    for (const path of ['/', '/theme-init.js', '/api/sessions']) {
      const response = await fetch(`${ui.host.url}${path}`);
      assert.equal(response.headers.get('content-security-policy'), ui.contentSecurityPolicy, path);
    }
    const script = await fetch(`${ui.host.url}/theme-init.js`);
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type') ?? '', /javascript/);
    const html = await (await fetch(`${ui.host.url}/`)).text();
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script in index.html');
  });

  test('a stored dark theme applies before the app mounts; markdown, shiki and a diff render; nothing is refused', async () => {
    const id = await ui.createSession('Under the policy');
    const { page, context, problems } = await ui.open({ hash: `#/s/${id}`, beforeLoad: storeDarkThemeAndWatch });
    const order = await page.evaluate(() => (window as unknown as { __order: string[] }).__order);
    assert.equal(order[0], 'theme', `data-theme set before the first render (saw ${order.join(', ')})`);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.equal(
      await page.evaluate(() => getComputedStyle(document.documentElement).colorScheme),
      'dark',
      'the context prefers light: only the stored choice makes it dark',
    );

    await send(page, 'show me markdown');
    await page.getByRole('table').waitFor();
    await page.locator('.shiki-token').first().waitFor();
    await page.locator('.outcome.completed').waitFor();
    await send(page, 'edit the greeting');
    await page.locator('.diff-wrap .diff-code-delete').first().waitFor();
    await page.getByRole('button', { name: 'Allow', exact: true }).click();
    await page.getByText('Fixed the typo.').waitFor();
    await page.screenshot({ path: `${outputDir}csp-dark.png` });

    const seen = await problems.read();
    assert.deepEqual(seen.violations, [], 'refused by the policy');
    assert.deepEqual(seen.consoleErrors, [], 'console errors');
    assert.ok(
      seen.requests.some((url) => url.endsWith('/theme-init.js')),
      'the theme script was loaded from the host',
    );
    await context.close();

    // The same session in the light theme, for the screenshot and to show a light page is refused nothing either.
    const light = await ui.open({ hash: `#/s/${id}` });
    await light.page.locator('.shiki-token').first().waitFor();
    await light.page.screenshot({ path: `${outputDir}csp-light.png` });
    assert.equal(await light.page.evaluate(() => document.documentElement.dataset.theme), undefined);
    assert.deepEqual((await light.problems.read()).violations, []);
    await light.context.close();
  });
});

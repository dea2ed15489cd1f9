import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { seriousViolations } from './uiHarness.ts';

/** What the Chromium suites do on a page of the UI, said once. */

export const composer = (page: Page) => page.getByRole('textbox', { name: 'Message' });

export async function send(page: Page, prompt: string): Promise<void> {
  await composer(page).fill(prompt);
  await composer(page).press('Enter');
}

/** No serious or critical axe violation on the page as it is now; `what` names the state in the failure. */
export async function assertAxeClean(page: Page, what: string): Promise<void> {
  const violations = await seriousViolations(page);
  assert.deepEqual(
    violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`),
    [],
    what,
  );
}

/** Waits for what the host or the page does at its own pace (a send goes through the outbox first). */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

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

import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';

/*
 * The host's Content-Security-Policy, read from the host package at run time (as test/e2e imports the host's
 * harness): the fixture host sends the very value the real host sends, so the UI is tested under the policy it
 * ships with. The web's typecheck cannot check host sources, hence the import by path.
 */
const policyPath = fileURLToPath(new URL('../../../host/src/http/contentSecurityPolicy.ts', import.meta.url));

export const hostPolicyMissing = existsSync(policyPath)
  ? false
  : 'packages/host (and its contentSecurityPolicy.ts) is not in this checkout';

export async function hostContentSecurityPolicy(): Promise<string | undefined> {
  if (hostPolicyMissing !== false) return undefined;
  const module = (await import(pathToFileURL(policyPath).href)) as { CONTENT_SECURITY_POLICY: string };
  return module.CONTENT_SECURITY_POLICY;
}

export interface PageProblems {
  /** `securitypolicyviolation` events: `directive blocked-uri`. */
  violations: string[];
  consoleErrors: string[];
  /** Every URL the page asked for. */
  requests: string[];
}

export interface PageRecorder extends PageProblems {
  /** What was recorded, once the violations fired just before have reached Node. */
  read(): Promise<PageProblems>;
}

/**
 * Records, from before any page script runs, what the policy refused, what the console reported as an error
 * and every request. Call it before the first navigation.
 */
export async function recordProblems(context: BrowserContext, page: Page): Promise<PageRecorder> {
  const problems: PageProblems = { violations: [], consoleErrors: [], requests: [] };
  await context.exposeBinding('__reportCspViolation', (_source, text: string) => {
    problems.violations.push(text);
  });
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const report = (window as unknown as { __reportCspViolation(text: string): void }).__reportCspViolation;
      report(`${event.effectiveDirective} ${event.blockedURI}`);
    });
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.consoleErrors.push(message.text());
  });
  page.on('request', (request) => {
    problems.requests.push(request.url());
  });
  return {
    ...problems,
    async read() {
      // A violation reaches Node through the binding a moment after the page fired it.
      await page.waitForTimeout(100);
      return problems;
    },
  };
}

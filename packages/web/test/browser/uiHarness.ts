import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildWeb } from '../../scripts/build.ts';
import { distDir } from '../../scripts/buildState.ts';
import { type FixtureHost, startFixtureHost } from '../fixtureHost/fixtureHost.ts';
import { launchChromium } from './chromium.ts';
import { hostContentSecurityPolicy, type PageRecorder, recordProblems } from './hostPolicy.ts';

export const outputDir = fileURLToPath(new URL('../../test-output/', import.meta.url));

export interface UiHarness {
  host: FixtureHost;
  browser: Browser;
  /** The policy the fixture host sends, the real host's; undefined without `packages/host`. */
  contentSecurityPolicy: string | undefined;
  /**
   * A fresh browser context (its own cookies and localStorage) on the UI; `problems` has what the policy
   * refused, console errors and requests since before the first page script. `beforeLoad` runs in the page
   * before any of its scripts.
   */
  open(options?: {
    width?: number;
    height?: number;
    colorScheme?: 'light' | 'dark';
    hash?: string;
    beforeLoad?: () => void;
  }): Promise<{
    context: BrowserContext;
    page: Page;
    problems: PageRecorder;
  }>;
  /** A session over the API (`cwd` defaults to `/work/project`; `worktree: true` asks for a worktree). */
  createSession(title: string, options?: { cwd?: string; worktree?: boolean }): Promise<string>;
  /** A new session, opened in a fresh context once its heading shows. */
  openSession(
    title: string,
    options?: Parameters<UiHarness['open']>[0],
  ): Promise<{ id: string } & Awaited<ReturnType<UiHarness['open']>>>;
  close(): Promise<void>;
}

/**
 * The built UI served by the fixture host, in Debian's Chromium, under the real host's Content-Security-Policy
 * so that every test would notice a feature the policy breaks.
 */
export async function startUiHarness(options: { speed?: number } = {}): Promise<UiHarness> {
  await buildWeb({ quiet: true });
  mkdirSync(outputDir, { recursive: true });
  const contentSecurityPolicy = await hostContentSecurityPolicy();
  const host = await startFixtureHost({ distDir, speed: options.speed ?? 0.2, contentSecurityPolicy });
  const browser = await launchChromium();
  const harness: UiHarness = {
    host,
    browser,
    contentSecurityPolicy,
    async open({ width = 1280, height = 860, colorScheme = 'light', hash = '', beforeLoad } = {}) {
      const context = await browser.newContext({ viewport: { width, height }, colorScheme });
      const page = await context.newPage();
      page.on('pageerror', (error) => process.stderr.write(`page error: ${error.message}\n`));
      const problems = await recordProblems(context, page);
      if (beforeLoad !== undefined) await context.addInitScript(beforeLoad);
      await page.goto(`${host.url}/${hash}`);
      await page.waitForSelector('.app');
      return { context, page, problems };
    },
    async createSession(title, { cwd = '/work/project', worktree } = {}) {
      const response = await fetch(`${host.url}/api/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ cwd, title, ...(worktree === undefined ? {} : { worktree }) }),
      });
      if (!response.ok) throw new Error(`the fixture host refused the session: ${await response.text()}`);
      return ((await response.json()) as { id: string }).id;
    },
    async openSession(title, options = {}) {
      const id = await harness.createSession(title);
      const opened = await harness.open({ ...options, hash: `#/s/${id}` });
      await opened.page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
      return { id, ...opened };
    },
    async close() {
      await browser.close();
      await host.close();
    },
  };
  return harness;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Runs axe-core in the page; returns the serious and critical violations. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated over the DevTools protocol, not added as an inline <script>: the host's policy refuses those.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document);
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target })),
    }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

import { existsSync } from 'node:fs';
import { chromiumPath, launchChromium } from '../test/browser/chromium.ts';
import { startFixtureHost } from '../test/fixtureHost/fixtureHost.ts';
import { buildWeb } from './build.ts';
import { distDir } from './buildState.ts';

export interface LongSessionTiming {
  rows: number;
  /** Navigation start → the newest rows of the transcript painted, per run (ms). */
  openMs: number[];
  /** Rows mounted in the DOM once open (virtualization keeps this small). */
  mountedRows: number;
}

/** Null when Chromium is not installed. */
export function chromiumMissing(): string | null {
  return existsSync(chromiumPath) ? null : `no Chromium at ${chromiumPath}`;
}

/**
 * Opens a session of `rows` transcript rows in Chromium (the built UI against the fixture host)
 * `runs` times, each in a fresh context, and times it until its newest row is on screen.
 */
export async function measureLongSessionOpen(rows: number, runs: number): Promise<LongSessionTiming> {
  await buildWeb({ quiet: true });
  const host = await startFixtureHost({ distDir });
  const browser = await launchChromium();
  try {
    const session = host.seedLongSession(rows);
    const last = `Part ${Math.ceil(rows / 2) - 1} `;
    const openMs: number[] = [];
    let mountedRows = 0;
    for (let run = 0; run < runs; run++) {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const page = await context.newPage();
      await page.goto(`${host.url}/#/s/${session.id}`);
      // Timed inside the page, at the first animation frame that shows the row.
      // (A source string: this module is also type-checked without the DOM library, from the bench.)
      const painted = await page.waitForFunction(
        `[...document.querySelectorAll('.item')].some((item) => item.textContent.includes(${JSON.stringify(last)})) && performance.now()`,
        undefined,
        { polling: 'raf', timeout: 30_000 },
      );
      openMs.push((await painted.jsonValue()) as number);
      mountedRows = await page.locator('.item').count();
      await context.close();
    }
    return { rows, openMs, mountedRows };
  } finally {
    await browser.close();
    await host.close();
  }
}

import { type Browser, chromium } from 'playwright-core';

/** Debian's Chromium, headless; no browser download (the CI installs the `chromium` package). */
export const chromiumPath = process.env.OUTRIGGER_CHROMIUM ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

// Headless Chromium for the browser tests: Debian's `chromium` (or RUNLEDGER_CHROMIUM), driven by playwright-core.
// Without it the browser tests skip, with one line saying how to get it.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** The Chromium binary the browser tests drive. */
const CHROMIUM = process.env['RUNLEDGER_CHROMIUM'] ?? '/usr/bin/chromium';

/** True when that binary exists; the browser tests are `describe.skipIf(!haveBrowser)`. */
export const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM}; install Debian's chromium package (.ci/run does) or set RUNLEDGER_CHROMIUM`);

/**
 * A headless Chromium with nothing of its own going on (no sandbox, GPU, background networking, component
 * updates or sync), so a test sees only the pages it opens.
 *
 * @example
 * browser = await launchChromium();
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

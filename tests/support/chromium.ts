// Headless Chromium for the browser tests: Debian's `chromium` (or RUNLEDGER_CHROMIUM), driven by playwright-core.
// Without it the browser tests skip, with one line saying how to get it.
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { inject } from 'vitest';

/** The Chromium binary the browser tests drive. */
export const CHROMIUM = process.env['RUNLEDGER_CHROMIUM'] ?? '/usr/bin/chromium';

/** A headless Chromium with nothing of its own going on (no sandbox, GPU, background networking, component updates or sync). */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** True when that binary exists; the browser tests are `describe.skipIf(!haveBrowser)`. */
export const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser) console.warn(`browser tests skipped: no Chromium at ${CHROMIUM}; install Debian's chromium package (.ci/run does) or set RUNLEDGER_CHROMIUM`);

/**
 * The run's shared Chromium (started once by shared-chromium.ts), or a Chromium of this file's own when there is
 * none; a test sees only the pages it opens (each file opens its own pages and closes them). `close()` on the shared
 * one disconnects this file and leaves the browser to the others.
 *
 * @example
 * browser = await launchChromium();
 */
export function launchChromium(): Promise<Browser> {
  const shared = inject('chromiumWsEndpoint');
  if (shared) return chromium.connect(shared);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** Where the browser tests' screenshots go (gitignored), for a person to look at. */
const SHOTS = resolve(import.meta.dirname, '../../test-output/screenshots');

/**
 * Saves what the page shows as test-output/screenshots/`file`, for a person to open: by default the browser window's
 * view only (a fraction of a second), since a full-page shot of a long page (the hourly calendar, the 90,000-slot
 * strip) costs Chromium seconds of CPU; `RUNLEDGER_TEST_SCREENSHOTS=1` takes the full pages the tests ask for, `=0`
 * takes none.
 *
 * @example
 * await screenshot(page, 'overview.png', { fullPage: true });
 */
export async function screenshot(page: Page, file: string, options: { fullPage?: boolean } = {}): Promise<void> {
  const mode = process.env['RUNLEDGER_TEST_SCREENSHOTS'];
  if (mode === '0') return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, file), fullPage: mode === '1' && options.fullPage === true });
}

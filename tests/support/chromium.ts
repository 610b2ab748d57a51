// Headless Chromium for the browser tests: Debian's `chromium` (or RUNLEDGER_CHROMIUM), driven by playwright-core.
// Without it the browser tests skip, with one line saying how to get it.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
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

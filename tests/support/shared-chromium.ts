// Vitest globalSetup: one headless Chromium for the whole run, which every browser test file connects to, instead
// of a Chromium start (seconds of CPU on a loaded machine) per file. Started only when the run has browser files
// in it (a bare `vitest run`, or files under tests/browser named on the command line) and Chromium is installed.
import type { TestProject } from 'vitest/node';
import { CHROMIUM_ARGS, CHROMIUM, haveBrowser } from './chromium.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The shared Chromium's endpoint, or '' when each file starts its own. */
    chromiumWsEndpoint: string;
  }
}

/** True when the command line names no files (the whole suite) or names one under tests/browser. */
function runHasBrowserFiles(): boolean {
  const argv = process.argv.slice(2);
  const filters = argv.filter((arg, i) => !arg.startsWith('-') && arg !== 'run' && !(argv[i - 1] ?? '').match(/^--(config|reporter|outputFile[.\w]*|project|root|dir)$/));
  return filters.length === 0 || filters.some((filter) => 'tests/browser/'.includes(filter) || filter.includes('browser'));
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  project.provide('chromiumWsEndpoint', '');
  if (!haveBrowser || !runHasBrowserFiles()) return undefined;
  const { chromium } = await import('playwright-core');
  const server = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  project.provide('chromiumWsEndpoint', server.wsEndpoint());
  return () => server.close();
}

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * A worker thread's module compiled beside this one (in dist/), or null when running from the TypeScript
 * sources (the tests), where a worker cannot load it: the caller then does the work in its own thread.
 *
 * @example
 * const url = compiledWorker('import-worker.js'); // file:///…/dist/src/audit/import-worker.js, or null
 */
export function compiledWorker(file: string): URL | null {
  const url = new URL(`./${file}`, import.meta.url);
  return url.protocol === 'file:' && existsSync(fileURLToPath(url)) ? url : null;
}

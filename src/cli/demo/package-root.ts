import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LedgerError } from '../../errors.js';

/**
 * The directory of the runledger package that holds this module, found by
 * walking up to `examples/orders/etl.mjs`: the same answer from `src/` (tests),
 * `dist/src/` (a clone after `npm run build`) and `node_modules/runledger/`.
 *
 * @example
 * join(packageRoot(), 'examples/orders/raw')
 */
export function packageRoot(from: string = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'examples', 'orders', 'etl.mjs'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) {
      throw new LedgerError('notFound.examples', `cannot find runledger's examples/orders next to ${fileURLToPath(from)}; reinstall the package (its "files" include examples/)`);
    }
    dir = parent;
  }
}

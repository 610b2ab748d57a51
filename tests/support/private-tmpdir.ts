// Vitest globalSetup: the whole run gets a temporary root of its own (TMPDIR, which os.tmpdir() and every child
// process read), and the run fails when a test left anything in it: every test removes what it creates.
import { mkdtempSync, readdirSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const COMPILE_CACHE = 'compile-cache';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'runledger-test-run-'));
  // Other Unix users (the shared-ledger test) reach their ledgers under it; only this user writes in it.
  chmodSync(root, 0o755);
  const before = process.env['TMPDIR'];
  process.env['TMPDIR'] = root;
  // The CLI's code cache (bin/runledger.js; Node 22 and later cache every process's modules there too) is the run's,
  // under its root: the one entry a test may leave.
  const cacheBefore = process.env['NODE_COMPILE_CACHE'];
  process.env['NODE_COMPILE_CACHE'] = join(root, COMPILE_CACHE);
  return () => {
    if (before === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = before;
    if (cacheBefore === undefined) delete process.env['NODE_COMPILE_CACHE'];
    else process.env['NODE_COMPILE_CACHE'] = cacheBefore;
    const left = readdirSync(root).filter((name) => name !== COMPILE_CACHE);
    rmSync(root, { recursive: true, force: true });
    if (left.length > 0) {
      process.exitCode = 1;
      throw new Error(`tests left ${left.length} entries in their temporary root (every test removes what it creates): ${left.slice(0, 20).join(', ')}${left.length > 20 ? ', …' : ''}`);
    }
  };
}

// Vitest globalSetup: the whole run gets a temporary root of its own (TMPDIR, which os.tmpdir() and every child
// process read), and the run fails when a test left anything in it: every test removes what it creates.
import { mkdtempSync, readdirSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'runledger-test-run-'));
  // Other Unix users (the shared-ledger test) reach their ledgers under it; only this user writes in it.
  chmodSync(root, 0o755);
  const before = process.env['TMPDIR'];
  process.env['TMPDIR'] = root;
  return () => {
    if (before === undefined) delete process.env['TMPDIR'];
    else process.env['TMPDIR'] = before;
    const left = readdirSync(root);
    rmSync(root, { recursive: true, force: true });
    if (left.length > 0) {
      process.exitCode = 1;
      throw new Error(`tests left ${left.length} entries in their temporary root (every test removes what it creates): ${left.slice(0, 20).join(', ')}${left.length > 20 ? ', …' : ''}`);
    }
  };
}

// Following the README and docs/ in a clone (the demo, `report --html report.html`, the example's --gold out/gold,
// run logs beside the ledger) leaves nothing `git status` lists as untracked.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const isGitCheckout = spawnSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() === 'true';

describe.skipIf(!isGitCheckout)('files the docs make are ignored', () => {
  test.each([
    { label: 'the demo directory (`demo --dir "$PWD/runledger-demo"`)', path: 'runledger-demo/runledger.db' },
    { label: 'the demo gold files', path: 'runledger-demo/gold/2026-11-02.csv' },
    { label: 'an HTML report (`report --html report.html`)', path: 'report.html' },
    { label: 'a report of the past (`--html past.html`)', path: 'past.html' },
    { label: "the example's output (`--gold out/gold`)", path: 'out/gold/orders-2026-11-02.csv' },
    { label: 'run logs beside the ledger', path: 'runledger.db.logs/etl_orders/2026-11-02_01ABC.log' },
    { label: 'run logs of a PostgreSQL ledger', path: 'runledger-logs/etl_orders/2026-11-02_01ABC.log' },
    { label: 'the ledger and its WAL files', path: 'runledger.db-wal' },
    { label: 'the packed tarball (`npm pack`, README "Outside the clone")', path: 'runledger-0.1.0.tgz' },
  ])('$label', ({ path }) => {
    const r = spawnSync('git', ['check-ignore', '--no-index', '-q', path], { cwd: ROOT });
    expect(r.status, `${path} is not ignored`).toBe(0);
  });

  test('sources are not ignored', () => {
    for (const path of ['src/index.ts', 'docs/catchup-and-sharing.md', 'examples/orders/etl.mjs', 'src/render/page.html']) {
      expect(spawnSync('git', ['check-ignore', '--no-index', '-q', path], { cwd: ROOT }).status, path).toBe(1);
    }
  });
});

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cli, tempDir } from '../support/run-cli.js';

/** Issue 18 through the real binary: the exact lint at `define`, in text and in `--json`. */
describe('define warns exactly about the leaves that can hide a failure (CLI end to end)', () => {
  const dir = tempDir('runledger-lint-e2e-');
  const env = { RUNLEDGER_DB: join(dir, 'ledger.db'), RUNLEDGER_NOW: '2026-11-05T01:00:00Z' };
  const tasksFile = (name: string, tasks: unknown[]) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify({ tasks }));
    return path;
  };

  test('a skip that reaches the leaf before the failure: d hides a and c, not b', () => {
    const file = tasksFile('skip-first.json', [{ id: 'a' }, { id: 'b', upstream: ['a'], triggerRule: 'one_failed' }, { id: 'c', upstream: ['a', 'b'], triggerRule: 'all_done' }, { id: 'd', upstream: ['b', 'c'] }]);
    const r = cli(['define', 'skip_first', '--schedule', '@daily', '--start', '2026-11-02', '--tasks', file, '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { warnings: Array<{ leaf: string; hides: string[]; failures: Array<{ taskId: string; orders: string }> }> };
    expect(out.warnings.map((w) => ({ leaf: w.leaf, hides: w.hides, orders: w.failures.map((f) => f.orders) }))).toEqual([{ leaf: 'd', hides: ['a', 'c'], orders: ['every', 'every'] }]);
    expect(r.stderr).toMatch(/^runledger: warning: skip_first: leaf 'd' \(all_success\) can end in success or be skipped after 'a' or 'c' failed, /);
  });

  test('a failure hidden in only some orders is named with an order in which it happens', () => {
    const file = tasksFile('some.json', [{ id: 'a', triggerRule: 'always' }, { id: 'b', triggerRule: 'none_failed' }, { id: 'c', upstream: ['a'], triggerRule: 'all_failed' }, { id: 'd', upstream: ['a', 'b', 'c'] }]);
    const r = cli(['define', 'some_orders', '--schedule', '@daily', '--start', '2026-11-02', '--tasks', file], env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("leaf 'd' (all_success) can be skipped in some orders after 'b' failed (when 'b' is still running after 'd' is skipped)");
  });
});

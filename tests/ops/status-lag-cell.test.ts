import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { cli, tempDir } from '../support/run-cli.js';

// The LAG cell of `status` is remembered from the row before it (same lag, same count behind): each row's cell must
// still be its own row's lag and count, whatever row came before it.
const dir = tempDir('runledger-lag-cell-');
const db = join(dir, 'ledger.db');
const NOW = '2026-11-05T12:00:00Z';
const run = (...args: string[]) => cli(['--db', db, '--now', NOW, ...args]);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('status LAG cells', () => {
  test('each row shows its own lag and dates behind (one, many, none; equal lags with other counts)', () => {
    const defines = [
      ['a_daily', '@daily', '2026-11-01'],
      ['b_hourly', '@hourly', '2026-11-01'],
      ['c_daily', '@daily', '2026-11-01'],
      ['d_one', '@daily', '2026-11-04'],
      ['e_none', '@daily', '2026-12-01'],
      ['f_one', '@daily', '2026-11-04'],
    ];
    for (const [pipeline, schedule, start] of defines) expect(run('define', pipeline as string, '--schedule', schedule as string, '--start', start as string).code).toBe(0);
    const json = JSON.parse(run('status', '--json').stdout) as { pipelines: Array<{ pipeline: string; lag: string; behind: number }> };
    const table = run('status', '--wide').stdout.trimEnd().split('\n').slice(1);
    expect(table).toHaveLength(json.pipelines.length);
    const behinds = new Set<number>();
    for (const row of json.pipelines) {
      behinds.add(row.behind);
      const line = table.find((l) => l.startsWith(`${row.pipeline} `)) as string;
      const cells = line.split(/ {2,}/);
      expect(cells[4]).toBe(row.behind > 0 ? `${row.lag} (${row.behind} date${row.behind === 1 ? '' : 's'} behind)` : row.lag);
    }
    expect([...behinds].sort((x, y) => x - y)[0]).toBe(0);
    expect(behinds.has(1)).toBe(true);
  });
});

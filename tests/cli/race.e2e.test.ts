import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cli, cliAsync, eventCount, tempDir } from '../support/run-cli.js';

const NOW = '2026-11-20T01:00:00+07:00';

/** S4: real OS processes racing on one SQLite file. */
describe('processes racing on one ledger file', () => {
  const setup = () => {
    const env = { RUNLEDGER_DB: join(tempDir(), 'ledger.db'), RUNLEDGER_NOW: NOW };
    expect(cli(['define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'Asia/Jakarta'], env).code).toBe(0);
    return env;
  };

  test('eight processes starting the same date: exactly one wins, seven are refused naming the running run', async () => {
    const env = setup();
    const results = await Promise.all(Array.from({ length: 8 }, () => cliAsync(['start', 'etl_orders', '2026-11-03'], env)));
    const winners = results.filter((r) => r.code === 0);
    const losers = results.filter((r) => r.code !== 0);
    expect(winners).toHaveLength(1);
    expect(losers.map((r) => r.code)).toEqual(Array(7).fill(3));
    const runId = winners[0]?.stdout.trim() ?? '';
    for (const loser of losers) expect(loser.stderr).toContain(`already running as run ${runId}`);
    expect(eventCount(env.RUNLEDGER_DB)).toBe(2);
  });

  test('eight processes starting eight different dates: none fails because of another', async () => {
    const env = setup();
    const dates = Array.from({ length: 8 }, (_, i) => `2026-11-${String(2 + i).padStart(2, '0')}`);
    const results = await Promise.all(dates.map((date) => cliAsync(['start', 'etl_orders', date], env)));
    expect(results.map((r) => [r.code, r.stderr.includes('runledger:') ? r.stderr : ''])).toEqual(dates.map(() => [0, '']));
    const state = JSON.parse(cli(['state', 'etl_orders', '--json'], env).stdout) as { dates: Array<{ date: string; status: string }> };
    expect(state.dates.filter((d) => dates.includes(d.date)).map((d) => d.status)).toEqual(dates.map(() => 'running'));
    expect(eventCount(env.RUNLEDGER_DB)).toBe(9);
  });
});

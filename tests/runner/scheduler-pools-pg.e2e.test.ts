// Pools across schedulers on PostgreSQL (issue 39, items 4 and 5) with the real binary: two schedulers on one
// PostgreSQL ledger never run more of a pool's runs at once than its size, read from the commands' own start and
// end lines, and every date runs once. The places are counted from the ledger, which both processes share.
import { afterAll, describe, expect, test, vi } from 'vitest';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { cli, cliAsync, tempDir } from './cli-helpers.js';
import { loggedCommand, logLines, mostAtOnce } from './run-log-lines.js';

vi.setConfig({ testTimeout: 180_000 });

const schemas = TEST_PG_URL === undefined ? undefined : pgSchemas(TEST_PG_URL);
afterAll(async () => schemas?.dropAll());

/** Four UTC days due: 2026-11-01 .. 2026-11-04. */
const NOW = '2026-11-05T01:00:00Z';
const PIPELINES = ['a', 'b', 'c'];
const POOL_SIZE = 2;

const LOGGED = loggedCommand(0.5);

describe.skipIf(schemas === undefined)(schemas === undefined ? pgSkipMessage('scheduler --pool across two schedulers') : 'scheduler --pool across two schedulers on one PostgreSQL ledger', () => {
  test(`when two schedulers share a PostgreSQL ledger and a pool of ${POOL_SIZE} then never more than ${POOL_SIZE} of its runs run at once, and every date runs once`, async () => {
    const db = await (schemas as NonNullable<typeof schemas>).fresh();
    const dir = tempDir();
    const env = { RUNLEDGER_NOW: NOW };
    for (const pipeline of PIPELINES) {
      // Each pipeline alone may run 4 at once, and each scheduler 8: only the shared pool holds them to 2.
      const r = cli(dir, ['--db', db, 'define', pipeline, '--schedule', '@daily', '--start', '2026-11-01', '--max-active-runs', '4', '--pool', 'warehouse', '--command', '--', ...LOGGED], env);
      expect(r.code, r.stderr).toBe(0);
    }
    const args = ['--db', db, 'scheduler', '--once', '--no-logs', '--json', '--parallel', '8', '--pool', `warehouse=${POOL_SIZE}`];
    const [one, two] = await Promise.all([cliAsync(dir, args, env).done, cliAsync(dir, args, env).done]);
    expect(one.code, one.stderr).toBe(0);
    expect(two.code, two.stderr).toBe(0);

    const lines = logLines(dir);
    const starts = lines.filter((l) => l.what === 'start').map((l) => l.run);
    // Twelve dates, each started once (by one scheduler or the other) and ended.
    expect(starts).toHaveLength(12);
    expect(new Set(starts).size).toBe(12);
    expect(lines.filter((l) => l.what === 'end')).toHaveLength(12);
    expect(mostAtOnce(lines)).toBeLessThanOrEqual(POOL_SIZE);
    for (const pipeline of PIPELINES) {
      const state = JSON.parse(cli(dir, ['--db', db, '--now', NOW, 'state', pipeline, '--json']).stdout) as { dates: Array<{ status: string }> };
      expect(state.dates.map((d) => d.status)).toEqual(['success', 'success', 'success', 'success']);
    }
    // Both schedulers' starts recorded the pool and its size.
    const log = JSON.parse(cli(dir, ['--db', db, '--now', NOW, 'log', '--json']).stdout) as { events: Array<{ type: string; data: { pool?: unknown } }> };
    const started = log.events.filter((e) => e.type === 'RunStarted');
    expect(started).toHaveLength(12);
    expect(started.map((e) => e.data.pool)).toEqual(started.map(() => ({ name: 'warehouse', size: POOL_SIZE })));
  });
});

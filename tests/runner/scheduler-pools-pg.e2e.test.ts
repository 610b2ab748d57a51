// Pools across schedulers on PostgreSQL (issue 39, items 4 and 5) with the real binary: two schedulers on one
// PostgreSQL ledger never run more of a pool's runs at once than its size, read from the commands' own start and
// end lines, and every date runs once. The places are counted from the ledger, which both processes share.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { cli, cliAsync, tempDir } from './cli-helpers.js';

vi.setConfig({ testTimeout: 180_000 });

const schemas = TEST_PG_URL === undefined ? undefined : pgSchemas(TEST_PG_URL);
afterAll(async () => schemas?.dropAll());

/** Four UTC days due: 2026-11-01 .. 2026-11-04. */
const NOW = '2026-11-05T01:00:00Z';
const PIPELINES = ['a', 'b', 'c'];
const POOL_SIZE = 2;

/** A command that logs its own start and end (nanoseconds, from the shell), with a pause between so runs overlap. */
const LOGGED = ['sh', '-c', 'echo "start $(date +%s%N) $RUNLEDGER_PIPELINE $RUNLEDGER_DATE" >> runs.log; sleep 0.5; echo "end $(date +%s%N) $RUNLEDGER_PIPELINE $RUNLEDGER_DATE" >> runs.log'];

type Line = { what: 'start' | 'end'; at: bigint; run: string };

function logLines(dir: string): Line[] {
  return readFileSync(join(dir, 'runs.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const [what, at, pipeline, date] = line.split(' ');
      return { what: what as 'start' | 'end', at: BigInt(at as string), run: `${pipeline} ${date}` };
    });
}

/** The most runs the log shows at once: a sweep over every start and end, an end first at the same instant. */
function mostAtOnce(lines: Line[]): number {
  const sorted = [...lines].sort((a, b) => (a.at === b.at ? (a.what === 'end' ? -1 : 1) : a.at < b.at ? -1 : 1));
  let now = 0;
  let most = 0;
  for (const line of sorted) {
    now += line.what === 'start' ? 1 : -1;
    most = Math.max(most, now);
  }
  return most;
}

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

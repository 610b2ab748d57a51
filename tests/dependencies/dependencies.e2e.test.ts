// Issue 29's acceptance, with the real binary on SQLite and PostgreSQL: an hourly orders_raw in
// Asia/Jakarta, a daily sales_report in UTC that waits for it, a three-day outage, and the fleet catchup.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { cli, tempDir } from '../runner/cli-helpers.js';
import { TEST_PG_URL, pgSchemas, pgSkipMessage } from '../support/pg.js';

/** Three UTC days after the outage began: sales_report's 1, 2 and 3 November are due, with every hour they read. */
const NOW = '2026-11-04T01:00:00Z';
const FAILING_HOUR = '2026-11-02T10:00:00+07:00';
const CLEARED_HOUR = '2026-11-02T12:00:00+07:00';
const HOUR_MS = 3_600_000;

type LoggedEvent = { position: number; type: string; eventId: string; data: { pipeline: string; date: string; cause?: { eventId: string; pipeline: string; date: string } }; metadata: { actor: string; reason?: string } };
type PendingDoc = { pending: Array<{ date: string; reason: string; blockedBy?: { pipeline: string; date: string; status: string }; cause?: { pipeline: string; date: string; actor: string; reason: string | null; eventId: string } }> };

const json = <T,>(text: string): T => JSON.parse(text) as T;

/** The hours of orders_raw a UTC day of sales_report reads: those whose instant lies in that day (Jakarta is UTC+7 all year). */
function hoursOf(day: string): number[] {
  const start = Date.parse(`${day}T00:00:00Z`);
  return Array.from({ length: 24 }, (_, i) => start + i * HOUR_MS);
}

/**
 * Walks the log in position order keeping each orders_raw hour's status as of that position: at every
 * sales_report start, all 24 hours of its day must be success already. Returns how many it checked.
 */
function checkOrder(events: LoggedEvent[]): number {
  const hourStatus = new Map<number, string>();
  const statusOf: Record<string, string> = { RunStarted: 'running', RunSucceeded: 'success', RunFailed: 'failed', RunCleared: 'cleared' };
  let checked = 0;
  for (const e of [...events].sort((a, b) => a.position - b.position)) {
    if (e.data.pipeline === 'orders_raw' && statusOf[e.type]) hourStatus.set(Date.parse(e.data.date), statusOf[e.type] as string);
    if (e.data.pipeline !== 'sales_report' || e.type !== 'RunStarted') continue;
    for (const hour of hoursOf(e.data.date)) {
      expect(hourStatus.get(hour), `orders_raw ${new Date(hour).toISOString()} when sales_report ${e.data.date} started at position ${e.position}`).toBe('success');
      checked += 1;
    }
  }
  return checked;
}

async function acceptance(dir: string, db: string): Promise<void> {
  const env = { RUNLEDGER_DB: db, RUNLEDGER_NOW: NOW };
  const run = (args: string[], actor = 'tester') => cli(dir, args, { ...env, RUNLEDGER_ACTOR: actor });
  // The hour's command fails while a marker file named after its date exists.
  expect(run(['define', 'orders_raw', '--schedule', '@hourly', '--start', '2026-11-01', '--tz', 'Asia/Jakarta', '--command', '--', 'sh', '-c', 'test ! -e "fail-$RUNLEDGER_DATE"']).code).toBe(0);
  const defined = run(['define', 'sales_report', '--schedule', '@daily', '--start', '2026-11-01', '--upstream', 'orders_raw', '--command', '--', 'true']);
  expect(defined.stdout).toContain('upstreams: orders_raw');

  // A cycle is refused with exit 2, named, and nothing is written.
  const before = json<{ events: unknown[] }>(run(['log', '--json']).stdout).events.length;
  const cycle = run(['define', 'orders_raw', '--upstream', 'sales_report']);
  expect(cycle.code).toBe(2);
  expect(cycle.stderr).toContain('orders_raw -> sales_report -> orders_raw');
  const unknown = run(['define', 'sales_report', '--upstream', 'orders_rwa']);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain("there is no pipeline 'orders_rwa'");
  expect(json<{ events: unknown[] }>(run(['log', '--json']).stdout).events).toHaveLength(before);

  // After three days down, one hour fails: catchup --all runs everything else in order and exits 6.
  writeFileSync(join(dir, `fail-${FAILING_HOUR}`), '');
  const first = run(['catchup', '--all', '--parallel', '3', '--no-logs']);
  expect(first.code, first.stderr).toBe(6);
  expect(first.stdout).toMatch(/sales_report\s+2026-11-02\s+missing\s+skipped .*waits for orders_raw 2026-11-02T10:00:00\+07:00 \(failed\)/);
  const pending = json<PendingDoc>(run(['pending', 'sales_report', '--json']).stdout);
  // The failed hour blocks exactly the UTC day that reads it.
  expect(pending.pending).toEqual([expect.objectContaining({ date: '2026-11-02', reason: 'upstream', blockedBy: { pipeline: 'orders_raw', date: FAILING_HOUR, status: 'failed' } })]);
  const check = run(['check', 'sales_report', '--max-blocked', '0']);
  expect(check.code).toBe(7);
  expect(check.stdout).toContain('sales_report: 1 date blocked by upstream, more than 0; first 2026-11-02 waits for orders_raw 2026-11-02T10:00:00+07:00 (failed)');

  rmSync(join(dir, `fail-${FAILING_HOUR}`));
  const second = run(['catchup', '--all', '--no-logs']);
  expect(second.code, second.stderr).toBe(0);
  expect(second.stdout).toContain('2 succeeded, 0 failed, 0 skipped');
  let events = json<{ events: LoggedEvent[] }>(run(['log', '--json']).stdout).events;
  // Every sales_report start came after all 24 of its hours succeeded: 3 days x 24 hours.
  expect(checkOrder(events)).toBe(72);

  // A cascaded clear: the hour and the day that reads it, in one append, the day naming its cause.
  const dry = run(['clear', 'orders_raw', CLEARED_HOUR, '--downstream', '--dry-run']);
  expect(dry.stdout).toMatch(/sales_report\s+2026-11-02\s+success\s+\w+\s+orders_raw 2026-11-02T12:00:00\+07:00/);
  expect(dry.stdout).toContain('would clear 1 date(s) of orders_raw and 1 downstream date(s)');
  expect(run(['clear', 'orders_raw', CLEARED_HOUR, '--downstream', '--reason', 'late file'], 'alice').code).toBe(0);
  events = json<{ events: LoggedEvent[] }>(run(['log', '--json']).stdout).events;
  const clears = events.filter((e) => e.type === 'RunCleared');
  expect(clears.map((e) => `${e.data.pipeline} ${e.data.date}`)).toEqual([`orders_raw ${CLEARED_HOUR}`, 'sales_report 2026-11-02']);
  expect(clears[1]?.data.cause).toEqual({ eventId: clears[0]?.eventId, pipeline: 'orders_raw', date: CLEARED_HOUR });
  expect(clears[1]?.position).toBe((clears[0]?.position ?? 0) + 1);
  const afterClear = json<PendingDoc>(run(['pending', 'sales_report', '--json']).stdout).pending;
  expect(afterClear).toEqual([
    expect.objectContaining({ date: '2026-11-02', reason: 'upstream', cause: expect.objectContaining({ pipeline: 'orders_raw', date: CLEARED_HOUR, actor: 'alice', reason: 'late file' }) }),
  ]);
  const state = run(['state', 'sales_report', '--table']);
  expect(state.stdout).toContain(`cleared because orders_raw ${CLEARED_HOUR} was cleared by alice: late file`);

  // One more catchup --all brings both back.
  const third = run(['catchup', '--all', '--no-logs']);
  expect(third.code, third.stderr).toBe(0);
  expect(third.stdout).toMatch(new RegExp(`orders_raw\\s+${CLEARED_HOUR.replace(/\+/g, '\\+')}\\s+cleared\\s+success`));
  expect(third.stdout).toMatch(/sales_report\s+2026-11-02\s+cleared\s+success/);
  expect(json<PendingDoc>(run(['pending', 'sales_report', '--json']).stdout).pending).toEqual([]);
  expect(json<PendingDoc>(run(['pending', 'orders_raw', '--json']).stdout).pending).toEqual([]);
  events = json<{ events: LoggedEvent[] }>(run(['log', '--json']).stdout).events;
  expect(checkOrder(events)).toBe(72 + 24);

  // Redefining the upstreams is recorded with its diff.
  expect(run(['define', 'sales_report', '--upstream', 'orders_raw:previous']).stdout).toContain('upstreams: orders_raw -> orders_raw:previous');
  const redefined = json<{ events: Array<{ data: { changes?: Array<{ field: string; from: unknown; to: unknown }> } }> }>(run(['log', 'sales_report', '--type', 'PipelineRedefined', '--json']).stdout).events;
  expect(redefined.at(-1)?.data.changes).toEqual([{ field: 'upstreams', from: [{ pipeline: 'orders_raw', mapping: 'overlap' }], to: [{ pipeline: 'orders_raw', mapping: 'previous' }] }]);
}

describe('dependencies between pipelines on SQLite', () => {
  test('an outage, a failed hour, a cascaded clear and the fleet catchup, in dependency order', async () => {
    const dir = tempDir();
    await acceptance(dir, join(dir, 'runledger.db'));
  }, 120_000);

  test('catchup of one pipeline leaves its blocked dates alone and says so in one line', () => {
    const dir = tempDir();
    const env = { RUNLEDGER_DB: join(dir, 'l.db'), RUNLEDGER_NOW: '2026-11-03T01:00:00Z' };
    cli(dir, ['define', 'raw', '--schedule', '@daily', '--start', '2026-11-01', '--tz', 'Asia/Jakarta'], env);
    cli(dir, ['define', 'report', '--schedule', '@daily', '--start', '2026-11-01', '--upstream', 'raw'], env);
    const r = cli(dir, ['catchup', 'report', '--no-logs', '--', 'true'], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('left alone 2 dates of report that wait for upstream dates not done: 2026-11-01 waits for raw 2026-11-01 (missing), and 1 more; add --wait-upstream to wait for them');
  });
});

describe('the fleet dry run', () => {
  test('catchup --all --dry-run lists every date each pipeline would run, in dependency order, and writes nothing', () => {
    const dir = tempDir();
    const env = { RUNLEDGER_DB: join(dir, 'l.db'), RUNLEDGER_NOW: '2026-11-03T03:00:00Z' };
    cli(dir, ['define', 'raw', '--schedule', '@daily', '--start', '2026-11-01', '--tz', 'Asia/Jakarta', '--command', '--', 'true'], env);
    cli(dir, ['define', 'report', '--schedule', '@daily', '--start', '2026-11-01', '--upstream', 'raw', '--command', '--', 'true'], env);
    cli(dir, ['define', 'manual', '--schedule', '@daily', '--start', '2026-11-01', '--upstream', 'raw'], env);
    const r = cli(dir, ['catchup', '--all', '--dry-run'], env);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').filter((l) => /^(raw|report) /.test(l)).map((l) => l.split(/\s+/).slice(0, 2).join(' '))).toEqual(['raw 2026-11-01', 'raw 2026-11-02', 'report 2026-11-01', 'report 2026-11-02']);
    expect(r.stdout).toContain('left alone (no stored command; runledger define <pipeline> --command -- …): manual');
    expect(JSON.parse(cli(dir, ['log', '--json'], env).stdout).events).toHaveLength(3);
  });
});

describe.skipIf(TEST_PG_URL === undefined)('dependencies between pipelines on PostgreSQL', () => {
  const schemas = TEST_PG_URL === undefined ? undefined : pgSchemas(TEST_PG_URL);
  afterAll(async () => schemas?.dropAll());
  test('an outage, a failed hour, a cascaded clear and the fleet catchup, in dependency order', async () => {
    await acceptance(tempDir(), await (schemas as NonNullable<typeof schemas>).fresh());
  }, 180_000);
});
if (TEST_PG_URL === undefined) console.log(pgSkipMessage('issue 29 acceptance'));

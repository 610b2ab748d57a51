import { rmSync } from 'node:fs';
import { redefineAsBefore } from '../support/redefine-as-before.js';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, test } from 'vitest';
import { inDueStrip, statusStrip } from '../../projections/views/status-strip.js';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import type { ReadModels } from '../../src/store/read-models.js';
import { loadOverview } from '../../src/views/load-pages.js';
import { pageBody, servedLinks } from '../../src/render/render-pages.js';
import { stripRange, tableStrip } from '../../src/views/table-strip.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { tempDir } from '../support/run-cli.js';

// The overview's strip reads only the dates its last 30 slots need; it draws what the strip of `state` read
// from the 30th due slot back draws, whatever the pipeline holds: off-schedule runs inside the range, before
// its start and after the last due slot, keys recorded under another zone or schedule, rows an upstream
// blocks, stalled runs, retries, marks, and fewer than 30 due slots.

const dir = tempDir('runledger-table-strip-');
const stores: Array<{ name: string; fresh: () => Promise<string> }> = [{ name: 'sqlite', fresh: async () => join(dir, 'strip.db') }];
const schemas = TEST_PG_URL === undefined ? null : pgSchemas(TEST_PG_URL);
if (schemas !== null) stores.push({ name: 'postgres', fresh: () => schemas.fresh() });
else console.log(pgSkipMessage('overview strip test'));
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await schemas?.dropAll();
});

/**
 * The strip as the overview drew it before: `state` without metrics from the 30th due slot back, less the rows recorded
 * on a slot not due yet (`state` shows them; the strip's columns are due slots).
 */
async function stateStrip(ledger: Ledger, pipeline: string, nowMs: number) {
  const { timetable } = await ledger.pipeline(pipeline);
  const lastDue = timetable.lastDue(nowMs);
  const lastDueMs = lastDue === undefined ? Number.NEGATIVE_INFINITY : Date.parse(lastDue.logicalDate);
  let slot = lastDue;
  for (let n = 1; slot !== undefined && n < 30; n++) {
    const before = timetable.slotAtOrBefore(Date.parse(slot.logicalDate) - 1);
    slot = before === undefined || before.date === slot.date ? undefined : before;
  }
  const rows = (await ledger.state({ pipeline, metrics: false, ...(slot === undefined ? {} : { from: slot.date }) })).dates;
  return statusStrip(rows.filter((row) => inDueStrip(row, lastDueMs)), 30);
}

async function history(ledger: Ledger, advance: (ms: number) => void, clockNow: () => number): Promise<void> {
  const run = async (pipeline: string, date: string, outcome: 'succeed' | 'fail' | 'none', extra: { manual?: boolean; leaseMs?: number; error?: string } = {}) => {
    const started = await ledger.start({ pipeline, date, ...(extra.manual ? { runType: 'manual' as const } : {}), ...(extra.leaseMs === undefined ? {} : { lease: extra.leaseMs }) });
    if (outcome === 'succeed') await ledger.succeed({ runId: started.runId, metrics: { rows: 1 } });
    if (outcome === 'fail') await ledger.fail({ runId: started.runId, error: extra.error ?? 'boom' });
  };
  // Sixty due days: successes, a long failure, a retry waiting, marks, off-schedule runs everywhere, a stalled run.
  await ledger.define({ pipeline: 'long', schedule: '@daily', start: '2026-09-06', timezone: 'UTC', retries: 2 });
  for (let day = 6; day <= 30; day++) await run('long', `2026-10-${String(day).padStart(2, '0')}`, day % 7 === 0 ? 'fail' : 'succeed', { error: `line one\n${'x'.repeat(600)}` });
  await run('long', '2026-10-31', 'fail');
  await run('long', '2026-08-15T00:00:00Z', 'succeed', { manual: true });
  await run('long', '2026-10-20T12:00:00Z', 'fail', { manual: true });
  await run('long', '2026-11-04T18:00:00Z', 'none', { manual: true, leaseMs: 3_600_000 });
  await run('long', '2026-11-03', 'none', { leaseMs: 60_000 });
  await ledger.mark({ pipeline: 'long', dates: ['2026-10-12'], success: true, reason: 'loaded by hand' });
  await ledger.mark({ pipeline: 'long', dates: ['2026-10-13'], skipped: true, reason: 'holiday' });
  // Eleven due days, with an off-schedule run before the start.
  await ledger.define({ pipeline: 'short', schedule: '@daily', start: '2026-10-25', timezone: 'UTC' });
  await run('short', '2026-10-01T06:00:00Z', 'succeed', { manual: true });
  await run('short', '2026-10-26', 'fail');
  await run('short', '2026-10-28', 'succeed');
  // Rows an upstream blocks.
  await ledger.define({ pipeline: 'up', schedule: '@daily', start: '2026-10-01', timezone: 'UTC' });
  await ledger.define({ pipeline: 'down', schedule: '@daily', start: '2026-10-01', timezone: 'UTC', upstreams: [{ pipeline: 'up', mapping: 'overlap' }] });
  for (const day of ['10', '11', '12', '20']) await run('up', `2026-10-${day}`, day === '11' ? 'fail' : 'succeed');
  for (const day of ['10', '11', '12']) await run('down', `2026-10-${day}`, day === '10' ? 'succeed' : 'fail');
  // Keys recorded in New York, now naming UTC midnights (moved keys): zone changes as a release before definitions over time recorded them.
  await ledger.define({ pipeline: 'moved', schedule: '@daily', start: '2026-09-20', timezone: 'America/New_York' });
  for (const day of ['2026-09-21', '2026-10-07', '2026-10-21', '2026-10-25', '2026-10-26', '2026-11-01']) await run('moved', day, day.endsWith('26') ? 'fail' : 'succeed');
  await redefineAsBefore(ledger, { pipeline: 'moved', schedule: '@daily', start: '2026-09-20', timezone: 'UTC' }, clockNow());
  // Keys at midnight, slots at 06:00 after a redefinition (misaligned keys).
  await ledger.define({ pipeline: 'shifted', schedule: '@daily', start: '2026-09-20', timezone: 'UTC' });
  for (const day of ['2026-10-05', '2026-10-20', '2026-10-30', '2026-11-02']) await run('shifted', day, 'succeed');
  await redefineAsBefore(ledger, { pipeline: 'shifted', schedule: '0 6 * * *', start: '2026-09-20T06:00:00Z', timezone: 'UTC' }, clockNow());
  // An off-schedule key at the very instant of a slot after a move to Denver (two rows of one instant).
  await ledger.define({ pipeline: 'tied', schedule: '@daily', start: '2026-09-20', timezone: 'UTC' });
  for (const day of ['2026-10-14', '2026-10-15', '2026-10-16']) await run('tied', day, 'succeed');
  await run('tied', '2026-10-15T06:00:00Z', 'fail', { manual: true });
  await run('tied', '2026-10-20T06:00:00Z', 'succeed', { manual: true });
  await redefineAsBefore(ledger, { pipeline: 'tied', schedule: '@daily', start: '2026-09-20', timezone: 'America/Denver' }, clockNow());
  // Keys recorded in UTC, now New York's: the last one sits after the last due slot (not off-schedule: `state` shows it, the strip does not).
  await ledger.define({ pipeline: 'west', schedule: '@daily', start: '2026-09-20', timezone: 'UTC' });
  for (const day of ['2026-10-20', '2026-11-03', '2026-11-04']) await run('west', day, 'succeed');
  await redefineAsBefore(ledger, { pipeline: 'west', schedule: '@daily', start: '2026-09-20', timezone: 'America/New_York' }, clockNow());
  // Hourly keys written in UTC beside Kolkata's half hours: an off-schedule key that sorts before the slot's key of its instant.
  await ledger.define({ pipeline: 'half', schedule: '@hourly', start: '2026-11-04T00:00:00Z', timezone: 'UTC' });
  await run('half', '2026-11-04T20:30:00Z', 'fail', { manual: true });
  await redefineAsBefore(ledger, { pipeline: 'half', schedule: '@hourly', start: '2026-11-04T00:00:00Z', timezone: 'Asia/Kolkata' }, clockNow());
  await run('half', '2026-11-05T02:00:00+05:30', 'succeed');
  // Hourly, with a stalled hour and an off-schedule run between two hours.
  await ledger.define({ pipeline: 'hourly', schedule: '@hourly', start: '2026-11-04T00:00:00Z', timezone: 'Asia/Jakarta' });
  await run('hourly', '2026-11-04T12:00:00+07:00', 'succeed');
  await run('hourly', '2026-11-04T20:00:00Z', 'none', { leaseMs: 60_000 });
  await run('hourly', '2026-11-04T21:30:00Z', 'fail', { manual: true });
  // Nothing due yet.
  await ledger.define({ pipeline: 'later', schedule: '@daily', start: '2026-12-01', timezone: 'UTC' });
  advance(10 * 60_000);
  // The bounds themselves: a row on the last due slot, and an off-schedule run at the very instant of "now".
  await run('short', '2026-11-04', 'succeed');
  await run('short', new Date(clockNow()).toISOString(), 'succeed', { manual: true });
}

describe.each(stores)('the overview strip from the read models ($name)', (store) => {
  test('draws what the strip of `state` from the 30th due slot back draws, for every kind of row', async () => {
    let now = Date.parse('2026-11-05T00:50:00Z');
    const ledger = await openLedger({ db: await store.fresh(), clock: () => now, actor: 'test' });
    try {
      await history(ledger, (ms) => (now += ms), () => now);
      const models = ledger.store.readModels as ReadModels;
      const overview = await loadOverview(ledger, undefined);
      const pipelines = ['long', 'short', 'up', 'down', 'moved', 'shifted', 'tied', 'west', 'half', 'hourly', 'later'];
      expect(overview.rows.map((r) => r.status.pipeline).sort()).toEqual([...pipelines].sort());
      for (const pipeline of pipelines) {
        const expected = await stateStrip(ledger, pipeline, now);
        const { timetable } = await ledger.pipeline(pipeline);
        expect(await tableStrip(models, pipeline, timetable, stripRange(timetable, now, 30), now, 30), pipeline).toEqual(expected);
        expect(overview.rows.find((r) => r.status.pipeline === pipeline)?.strip, pipeline).toEqual(expected);
      }
      // The cases are there: off-schedule cells, a stalled one, a note, a long error, fewer than 30 cells, none.
      const strip = (p: string) => overview.rows.find((r) => r.status.pipeline === p)?.strip ?? [];
      expect(strip('long').map((c) => c.date)).toEqual(expect.arrayContaining(['2026-10-20T12:00:00+00:00', '2026-11-04T18:00:00+00:00']));
      expect(strip('long').map((c) => c.date)).not.toContain('2026-08-15T00:00:00+00:00');
      expect(strip('long').find((c) => c.date === '2026-11-03')?.status).toBe('stalled');
      expect(strip('long').find((c) => c.date === '2026-10-13')?.note).toBe('marked skipped by test: holiday');
      expect(strip('long').find((c) => c.date === '2026-10-14')?.error?.length).toBeGreaterThan(600);
      expect(strip('shifted').map((c) => c.date)).toEqual(expect.arrayContaining(['2026-10-20', '2026-10-20T06:00:00+00:00']));
      const tied = strip('tied').map((c) => c.date);
      expect(tied.indexOf('2026-10-15T06:00:00+00:00')).toBe(tied.indexOf('2026-10-15') + 1);
      // A missing slot and a row of its instant: the slot first.
      expect(tied.indexOf('2026-10-20T06:00:00+00:00')).toBe(tied.indexOf('2026-10-20') + 1);
      expect(strip('west').map((c) => c.date)).toContain('2026-11-03');
      expect(strip('west').map((c) => c.date)).not.toContain('2026-11-04');
      // `state` shows that row (recorded, its slot not due yet); the strip, whose columns are due slots, does not.
      expect((await ledger.state({ pipeline: 'west' })).dates.find((d) => d.date === '2026-11-04')?.status).toBe('success');
      const half = strip('half').map((c) => c.date);
      expect(half.indexOf('2026-11-05T02:00:00+05:30')).toBe(half.indexOf('2026-11-04T20:30:00+00:00') - 1);
      expect(strip('short').map((c) => c.date)).toContain('2026-10-01T06:00:00+00:00');
      expect(strip('short').map((c) => c.date)).toEqual(expect.arrayContaining(['2026-11-04', '2026-11-05T01:00:00+00:00']));
      expect(strip('short').find((c) => c.date === '2026-11-04')?.status).toBe('success');
      expect(strip('short')).toHaveLength(13);
      expect(strip('hourly').some((c) => c.status === 'stalled')).toBe(true);
      expect(strip('later')).toEqual([]);
      expect((await ledger.state({ pipeline: 'down', from: '2026-10-11', to: '2026-10-11' })).dates[0]?.blockedBy).toBeDefined();
    } finally {
      await ledger.close();
    }
  });
});

test('a status that a hand-edited date row holds is drawn as text in the strip', async () => {
  const path = join(dir, 'tampered.db');
  const now = Date.parse('2026-11-05T00:50:00Z');
  const ledger = await openLedger({ db: path, clock: () => now, actor: 'test' });
  try {
    await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-01', timezone: 'UTC' });
    await ledger.succeed({ runId: (await ledger.start({ pipeline: 'etl', date: '2026-11-03' })).runId });
    const other = new Database(path);
    other.prepare('UPDATE rm_dates SET status = ?').run('"><script>alert(1)</script>');
    other.close();
    const body = pageBody(await loadOverview(ledger, undefined), servedLinks(null, '/')).html;
    expect(body).toContain('s-&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(body).not.toContain('<script>');
  } finally {
    await ledger.close();
  }
});

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { verifyProjections } from '../../src/audit/verify-projections.js';
import { isLedgerError } from '../../src/errors.js';
import { collectMetrics } from '../../src/ops/collect-metrics.js';
import { renderReport } from '../../src/render/render-report.js';
import { Ledger, openLedger } from '../../src/open-ledger.js';
import type { EventStore, RawEvent } from '../../src/store/event-store.js';
import { openStore } from '../../src/store/open-store.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { tempDir } from '../support/run-cli.js';
import { foldOnly } from '../support/fold-only.js';
import { propertyRuns } from '../support/property-runs.js';

// The read models are the fold: any sequence of starts, successes, failures, clears, stale completions,
// redefinitions, task events, interrupts, heartbeats, abandons (takeovers after a lease ran out) and
// imports leaves every table row equal to a fresh fold (`verify --projections`), and every query read
// from the tables answers exactly what the same query folded from the events answers.

const START = Date.parse('2026-01-12T00:00:00Z');
const PIPELINES = ['alpha', 'beta', 'tasks'];
const DATES = ['2026-01-01', '2026-01-02', '2026-01-03', '2026-01-06T12:00:00Z'];
const LONG = `first line of a long failure\n${'x'.repeat(600)}`;

type Action =
  | { kind: 'start' | 'force' | 'succeed' | 'fail' | 'interrupt' | 'heartbeat' | 'clear' | 'stale' | 'task'; pipeline: number; date: number; long: boolean }
  | { kind: 'redefine'; pipeline: number; start: number; zone: boolean; dependsOnPast: boolean }
  | { kind: 'wait'; hours: number }
  | { kind: 'import' };

const keyed = fc.record({
  kind: fc.constantFrom('start', 'force', 'succeed', 'fail', 'interrupt', 'heartbeat', 'clear', 'stale', 'task'),
  pipeline: fc.nat(PIPELINES.length - 1),
  date: fc.nat(DATES.length - 1),
  long: fc.boolean(),
}) as fc.Arbitrary<Action>;
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 12, arbitrary: keyed },
  // A zone change leaves rows whose keys name slots at other instants; depends-on-past makes slots wait for the one before.
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('redefine' as const), pipeline: fc.nat(1), start: fc.nat(2), zone: fc.boolean(), dependsOnPast: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('wait' as const), hours: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'import' as const }) },
);

async function answers(ledger: Ledger, nowMs: number): Promise<unknown> {
  // The scrape too: run counters and duration histograms come from the summary rows' run tallies; and the
  // report, which reads summaries, status and pages of whole states from the tables: the same HTML as from the fold.
  const out: Record<string, unknown> = {
    pipelines: await ledger.pipelines(),
    // Every status row at once (one read of the summaries and of the running dates), as each alone.
    statuses: await ledger.pipelineStatuses({ nowMs }),
    metrics: (await collectMetrics(ledger, { nowMs, verify: null })).text,
    // Its charts aside: from the tables each draws the most recent dates as they stand now, from the fold the whole
    // history of moves (tests/views/table-pipeline-page.test.ts checks where both end).
    report: (await renderReport(ledger)).replace(/<div data-part="chart">[\s\S]*?(?=<h2>)/g, '<div data-part="chart">'),
  };
  for (const pipeline of PIPELINES) {
    out[pipeline] = {
      state: await ledger.state({ pipeline }),
      stateWithoutMetrics: await ledger.state({ pipeline, metrics: false }),
      statePaged: await pagedState(ledger, pipeline),
      oneDay: await ledger.state({ pipeline, from: '2026-01-03', to: '2026-01-03' }),
      pending: await ledger.pending({ pipeline }),
      runs: await ledger.runs({ pipeline }),
      lastTwoRuns: await ledger.runs({ pipeline, limit: 2 }),
      runsOfADate: await ledger.runs({ pipeline, date: '2026-01-02' }),
      // Paged back from a run named by id (the read models find it by id), the latest and the first.
      runsBeforeLast: await runsBefore(ledger, pipeline, -1),
      runsBeforeFirst: await runsBefore(ledger, pipeline, 0),
      watermark: await ledger.watermark({ pipeline }),
      lastEvents: await ledger.log({ pipeline, limit: 3 }),
      lastFailures: await ledger.log({ pipeline, types: ['RunFailed'], limit: 2 }),
      status: await ledger.pipelineStatus({ pipeline, nowMs }),
    };
  }
  return out;
}

/** The runs started before the run at `index` of the whole list (none when the list is empty). */
async function runsBefore(ledger: Ledger, pipeline: string, index: number): Promise<unknown> {
  const before = (await ledger.runs({ pipeline })).runs.at(index)?.runId;
  return before === undefined ? null : await ledger.runs({ pipeline, before, limit: 2 });
}

/** A whole state read three rows at a time, without metrics, following `nextFrom`. */
async function pagedState(ledger: Ledger, pipeline: string): Promise<unknown[]> {
  const rows: unknown[] = [];
  let from: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const view = await ledger.state({ pipeline, metrics: false, limit: 3, ...(from === undefined ? {} : { from }) });
    rows.push(...view.dates);
    if (view.nextFrom === null || view.nextFrom === undefined) return rows;
    from = view.nextFrom;
  }
  throw new Error(`state of ${pipeline}: paging did not end`);
}

async function rawRows(store: EventStore): Promise<RawEvent[]> {
  const rows: RawEvent[] = [];
  for await (const batch of store.readRaw()) rows.push(...batch.map(({ position, payload, prevHash, hash }) => ({ position, payload, prevHash, hash })));
  return rows;
}

async function runScenario(fresh: () => Promise<string>, actions: Action[]): Promise<void> {
  let now = START;
  const clock = () => now;
  let db = await fresh();
  let writer = await openLedger({ db, clock, actor: 'prop', checkpointAfter: 0 });
  await writer.define({ pipeline: 'alpha', schedule: '@daily', start: '2026-01-01' });
  await writer.define({ pipeline: 'beta', schedule: '@daily', start: '2026-01-01', timezone: 'Asia/Jakarta' });
  await writer.define({ pipeline: 'tasks', schedule: '@daily', start: '2026-01-01', tasks: [{ id: 'extract' }, { id: 'load', upstream: ['extract'] }] });
  // Every run started, per pipeline, newest last: completions pick one of the last few, so some are stale.
  const runs = new Map<number, string[]>();
  const pick = (step: { pipeline: number; date: number }) => {
    const list = runs.get(step.pipeline) ?? [];
    return list[list.length - 1 - (step.date % 3)];
  };
  try {
    for (const step of actions) {
      try {
        switch (step.kind) {
          case 'start':
          case 'force': {
            const pipeline = PIPELINES[step.pipeline] ?? '';
            const date = DATES[step.date] ?? '';
            const manual = date.includes('T');
            const run = await writer.start({ pipeline, date, force: step.kind === 'force', leaseMs: 3_600_000, ...(manual ? { runType: 'manual' as const } : {}) });
            runs.set(step.pipeline, [...(runs.get(step.pipeline) ?? []), run.runId]);
            break;
          }
          case 'succeed':
          case 'fail':
          case 'interrupt':
          case 'heartbeat': {
            const runId = pick(step);
            if (runId === undefined) break;
            if (step.kind === 'succeed') await writer.succeed({ runId, metrics: { rows: step.date, note: step.long ? LONG : 'short' }, outputs: step.long ? ['s3://bucket/a'] : [] });
            else if (step.kind === 'fail') await writer.fail({ runId, error: step.long ? LONG : 'boom', code: step.long ? 'E_LONG' : null });
            else if (step.kind === 'interrupt') await writer.interrupt({ runId, by: 'SIGTERM', message: step.long ? LONG : 'stopped' });
            else await writer.heartbeat({ runId, leaseMs: 7_200_000 });
            break;
          }
          case 'stale': {
            // The oldest run reports again: refused when it is no longer current, and nothing changes.
            const oldest = runs.get(step.pipeline)?.[0];
            if (oldest !== undefined) await writer.fail({ runId: oldest, error: 'late' });
            break;
          }
          case 'task': {
            const runId = pick({ pipeline: 2, date: step.date });
            if (runId === undefined) break;
            await writer.task({ runId, taskId: step.long ? 'load' : 'extract', state: step.pipeline === 0 ? 'failed' : 'success', ...(step.pipeline === 0 ? { error: step.long ? LONG : 'bad row' } : {}) });
            break;
          }
          case 'clear':
            await writer.clear({ pipeline: PIPELINES[step.pipeline] ?? '', dates: [DATES[step.date] ?? ''], reason: 'prop' });
            break;
          case 'redefine':
            await writer.define({
              pipeline: PIPELINES[step.pipeline] ?? '',
              schedule: '@daily',
              start: `2026-01-0${step.start + 1}`,
              ...(step.zone ? { timezone: step.pipeline === 0 ? 'Asia/Jakarta' : 'UTC' } : {}),
              dependsOnPast: step.dependsOnPast,
            });
            break;
          case 'wait':
            now += step.hours * 3_600_000;
            break;
          case 'import': {
            const rows = await rawRows(writer.store);
            await writer.close();
            db = await fresh();
            const store = await openStore(db, { create: true });
            await store.importSealed(rows);
            await store.close();
            writer = await openLedger({ db, clock, actor: 'prop', checkpointAfter: 0 });
            break;
          }
        }
      } catch (error) {
        // Refusals (a start on a running key, a result for a run that is not current) are answers, not failures.
        if (!isLedgerError(error)) throw error;
      }
    }
    const check = await verifyProjections(writer.store);
    expect(check.difference).toBeNull();
    const folding = new Ledger(foldOnly(writer.store), clock, 'prop', { checkpointAfter: 0 });
    expect(await answers(writer, now)).toEqual(await answers(folding, now));
    // Paging through a whole state (as the report's strips do) lists every row of the whole read once.
    for (const pipeline of PIPELINES) expect(await pagedState(writer, pipeline)).toEqual((await writer.state({ pipeline, metrics: false })).dates);
    // The running dates the port lists (from the pipeline row's keys) are the rows whose status is running, in order.
    const models = writer.store.readModels;
    if (models !== undefined) {
      for (const pipeline of PIPELINES) {
        const every = await models.dates(pipeline);
        expect(await models.dates(pipeline, { status: 'running' })).toEqual(every.filter((date) => date.status === 'running'));
        // The strip's columns are those of the whole rows: the lease of a running date, the whole error of a failed or retrying one.
        const strip = (await models.dates(pipeline, { withoutResults: true })).map((d) => ({
          date: d.date,
          status: d.status,
          logicalMs: Date.parse(d.logicalDate),
          offSchedule: d.offSchedule,
          leaseExpiresAt: d.status === 'running' ? d.leaseExpiresAt : null,
          error: d.status === 'failed' || d.status === 'up_for_retry' ? (d.error?.message ?? null) : null,
          ...(d.mark ? { mark: d.mark } : {}),
          ...(d.retry ? { retry: d.retry } : {}),
        }));
        expect(await models.stripDates(pipeline, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)).toEqual(strip);
      }
    }
  } finally {
    await writer.close();
  }
}

type Adapter = { name: string; fresh: () => Promise<string>; cleanup: () => Promise<void>; runs: number; sql: (db: string, statement: string) => Promise<void> };
const adapters: Adapter[] = [];
{
  const dir = tempDir('runledger-read-models-');
  let n = 0;
  const sql = async (db: string, statement: string) => {
    const Database = (await import('better-sqlite3')).default;
    const raw = new Database(db);
    raw.exec(statement);
    raw.close();
  };
  adapters.push({ name: 'sqlite', fresh: async () => join(dir, `ledger-${++n}.db`), cleanup: async () => rmSync(dir, { recursive: true, force: true }), runs: 25, sql });
}
if (TEST_PG_URL !== undefined) {
  const schemas = pgSchemas(TEST_PG_URL);
  const sql = async (db: string, statement: string) => {
    const pg = (await import('pg')).default;
    const schema = new URL(db).searchParams.get('schema') ?? 'public';
    const client = new pg.Client({ connectionString: db.replace(/\?.*$/, '') });
    await client.connect();
    await client.query(`SET search_path TO "${schema}"`);
    await client.query(statement);
    await client.end();
  };
  adapters.push({ name: 'postgres', fresh: () => schemas.fresh(), cleanup: () => schemas.dropAll(), runs: 6, sql });
} else {
  console.log(pgSkipMessage('read-model property test'));
}

afterAll(async () => {
  for (const adapter of adapters) await adapter.cleanup();
});

describe.each(adapters)('read models on $name', (adapter) => {
  test('any sequence of events leaves every table row equal to a fresh fold, and every query equal to the folded answer', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 40 }), (actions) => runScenario(adapter.fresh, actions)),
      propertyRuns(adapter.runs),
    );
  }, 300_000);

  test('a row changed by hand is found, named by pipeline, date and field, and rebuild makes it right', async () => {
    const db = await adapter.fresh();
    const ledger = await openLedger({ db, clock: () => START, actor: 'prop' });
    await ledger.define({ pipeline: 'alpha', schedule: '@daily', start: '2026-01-01' });
    const run = await ledger.start({ pipeline: 'alpha', date: '2026-01-02' });
    await ledger.succeed({ runId: run.runId, metrics: { rows: 3 } });
    expect((await verifyProjections(ledger.store)).ok).toBe(true);
    await ledger.close();
    await adapter.sql(db, `UPDATE rm_dates SET status = 'failed' WHERE date = '2026-01-02'`);
    const reopened = await openLedger({ db, clock: () => START, actor: 'prop' });
    const check = await verifyProjections(reopened.store);
    expect(check.difference).toMatchObject({ pipeline: 'alpha', table: 'date', key: '2026-01-02', field: 'status', stored: 'failed', folded: 'success' });
    await reopened.rebuild();
    expect((await verifyProjections(reopened.store)).ok).toBe(true);
    await reopened.close();
    // A run row too (keyed by pipeline and start position on SQLite, by run id on PostgreSQL).
    await adapter.sql(db, `UPDATE rm_runs SET status = 'failed'`);
    const again = await openLedger({ db, clock: () => START, actor: 'prop' });
    expect((await verifyProjections(again.store)).difference).toMatchObject({ pipeline: 'alpha', table: 'run', key: run.runId, field: 'status', stored: 'failed', folded: 'success' });
    await again.rebuild();
    expect((await verifyProjections(again.store)).ok).toBe(true);
    await again.close();
  });
});

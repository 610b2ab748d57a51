import { rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { verifyProjections } from '../../src/audit/verify-projections.js';
import { isLedgerError } from '../../src/errors.js';
import { collectMetrics } from '../../src/ops/collect-metrics.js';
import { runCheck } from '../../src/ops/run-check.js';
import { Ledger, openLedger } from '../../src/open-ledger.js';
import { planJob } from '../../src/runner/plan-job.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { tempDir } from '../support/run-cli.js';
import { foldOnly } from '../support/fold-only.js';
import { propertyRuns } from '../support/property-runs.js';

// Definitions over time: random pipelines with random runs, redefined at random instants (schedule, zone,
// start, timetable kind), with or without --effective. After every step the tables equal a fresh fold
// (`verify --projections`) and every answer read from them equals the answer folded from the events; a
// redefinition that is recorded never changes the state of a date recorded before it, and one that takes
// effect from an instant never lowers complete-through.

const START = Date.parse('2026-01-05T09:00:00Z');
const PIPELINES = ['alpha', 'beta'];
const SCHEDULES = ['@daily', '0 6 * * *', 'every 12h', '@weekly'];
const ZONES = ['UTC', 'Asia/Jakarta', 'Europe/Berlin', 'America/New_York'];

type Action =
  | { kind: 'start' | 'succeed' | 'fail' | 'clear'; pipeline: number; back: number }
  | { kind: 'redefine'; pipeline: number; schedule: number; zone: number; startDay: number; trigger: boolean; effective: 'none' | 'now' | number }
  | { kind: 'catchup'; pipeline: number }
  | { kind: 'wait'; hours: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constantFrom('start', 'succeed', 'fail', 'clear'), pipeline: fc.nat(1), back: fc.nat(4) }) as fc.Arbitrary<Action> },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('redefine' as const),
      pipeline: fc.nat(1),
      schedule: fc.nat(SCHEDULES.length - 1),
      zone: fc.nat(ZONES.length - 1),
      startDay: fc.nat(2),
      trigger: fc.boolean(),
      // Hours before now (a negative number: after it), or now, or no --effective at all.
      effective: fc.oneof(fc.constant('none' as const), fc.constant('now' as const), fc.integer({ min: -30, max: 60 })),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('catchup' as const), pipeline: fc.nat(1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('wait' as const), hours: fc.integer({ min: 3, max: 30 }) }) },
);

/** Every question this feature must answer alike from the tables and from the fold. */
async function answers(ledger: Ledger, nowMs: number): Promise<unknown> {
  const out: Record<string, unknown> = {
    pipelines: await ledger.pipelines(),
    statuses: await ledger.pipelineStatuses({ nowMs }),
    check: await runCheck(ledger, { maxPending: 0 }, { nowMs }),
    metrics: (await collectMetrics(ledger, { nowMs, verify: null })).text,
  };
  for (const pipeline of PIPELINES) {
    out[pipeline] = {
      state: await ledger.state({ pipeline }),
      pending: await ledger.pending({ pipeline }),
      runs: await ledger.runs({ pipeline }),
      watermark: await ledger.watermark({ pipeline }),
      status: await ledger.pipelineStatus({ pipeline, nowMs }),
      catchupPlan: (await planJob(ledger, { kind: 'catchup', pipeline, allPending: true })).plan,
      backfillPlan: (await planJob(ledger, { kind: 'backfill', pipeline, from: '2026-01-01', to: '2026-01-12' })).plan,
    };
  }
  return out;
}

/** A due slot of a pipeline's current timetable history, `back` slots before its last due one. */
async function dueKey(ledger: Ledger, pipeline: string, nowMs: number, back: number): Promise<string | undefined> {
  const { timetable } = await ledger.pipeline(pipeline);
  let slot = timetable.lastDue(nowMs);
  for (let i = 0; i < back && slot; i++) slot = timetable.slotAtOrBefore(Date.parse(slot.logicalDate) - 1);
  return slot?.date;
}

/** The recorded dates of a pipeline (every row that is not missing) and their statuses. */
async function recorded(ledger: Ledger, pipeline: string): Promise<Map<string, string>> {
  const view = await ledger.state({ pipeline, metrics: false });
  return new Map(view.dates.filter((d) => d.status !== 'missing').map((d) => [d.date, d.status]));
}

async function runScenario(fresh: () => Promise<string>, actions: Action[]): Promise<void> {
  let now = START;
  const clock = () => now;
  const db = await fresh();
  const writer = await openLedger({ db, clock, actor: 'prop', checkpointAfter: 0 });
  const folding = new Ledger(foldOnly(writer.store), clock, 'prop', { checkpointAfter: 0 });
  await writer.define({ pipeline: 'alpha', schedule: '@daily', start: '2026-01-01' });
  await writer.define({ pipeline: 'beta', schedule: '0 6 * * *', start: '2026-01-01', timezone: 'Asia/Jakarta' });
  const runs = new Map<string, string>();
  try {
    for (const step of actions) {
      const pipeline = 'pipeline' in step ? (PIPELINES[step.pipeline] as string) : '';
      try {
        switch (step.kind) {
          case 'start':
          case 'succeed':
          case 'fail':
          case 'clear': {
            const date = await dueKey(writer, pipeline, now, step.back);
            if (date === undefined) break;
            if (step.kind === 'start') runs.set(`${pipeline} ${date}`, (await writer.start({ pipeline, date })).runId);
            else if (step.kind === 'clear') await writer.clear({ pipeline, dates: [date], reason: 'prop' });
            else {
              const runId = runs.get(`${pipeline} ${date}`);
              if (runId === undefined) break;
              if (step.kind === 'succeed') await writer.succeed({ runId });
              else await writer.fail({ runId, error: 'boom' });
            }
            break;
          }
          case 'redefine': {
            const before = await recorded(writer, pipeline);
            const throughBefore = (await writer.watermark({ pipeline })).completeThrough;
            const effective = step.effective === 'none' ? {} : { effective: step.effective === 'now' ? 'now' : new Date(now - step.effective * 3_600_000).toISOString() };
            const result = await writer.define({
              pipeline,
              schedule: SCHEDULES[step.schedule] as string,
              timezone: ZONES[step.zone] as string,
              start: `2026-01-0${step.startDay + 1}`,
              timetable: step.trigger ? 'trigger' : 'interval',
              ...effective,
            });
            // What was recorded keeps its key and its state, whatever the change.
            expect(await recorded(writer, pipeline)).toEqual(before);
            if (result.effective !== undefined && throughBefore !== null) {
              const { timetable } = await writer.pipeline(pipeline);
              const through = (await writer.watermark({ pipeline })).completeThrough;
              expect(through).not.toBeNull();
              expect(Date.parse(timetable.slotAt(timetable.parseDate(through as string))?.logicalDate ?? '')).toBeGreaterThanOrEqual(
                Date.parse(timetable.slotAt(timetable.parseDate(throughBefore))?.logicalDate ?? ''),
              );
            }
            break;
          }
          case 'catchup': {
            // The runner waits for a free place while a started run holds one (the clock here stands still): only without.
            if ((await writer.pending({ pipeline })).inFlight.length > 0) break;
            await writer.catchup({ pipeline, allPending: true }, async () => ({}));
            break;
          }
          case 'wait':
            now += step.hours * 3_600_000;
            break;
        }
      } catch (error) {
        // Refusals (a change that would drop recorded dates, a start on a running key) are answers, not failures.
        if (!isLedgerError(error)) throw error;
      }
      expect((await verifyProjections(writer.store)).difference).toBeNull();
      expect(await answers(writer, now)).toEqual(await answers(folding, now));
      // State never shows a date that is not done at or below complete-through.
      for (const name of PIPELINES) {
        const view = await writer.state({ pipeline: name, metrics: false });
        if (view.completeThrough === null) continue;
        const { timetable } = await writer.pipeline(name);
        const throughMs = timetable.parseDate(view.completeThrough);
        for (const d of view.dates) {
          if (Date.parse(d.logicalDate) <= throughMs && timetable.slotKeyAt(Date.parse(d.logicalDate)) === d.date) expect(['success', 'skipped']).toContain(d.status);
        }
      }
    }
  } finally {
    await writer.close();
  }
}

type Adapter = { name: string; fresh: () => Promise<string>; cleanup: () => Promise<void>; runs: number };
const adapters: Adapter[] = [];
{
  const dir = tempDir('runledger-effective-');
  let n = 0;
  adapters.push({ name: 'sqlite', fresh: async () => join(dir, `ledger-${++n}.db`), cleanup: async () => rmSync(dir, { recursive: true, force: true }), runs: Number(process.env['EFFECTIVE_RUNS'] ?? 5) });
}
if (TEST_PG_URL !== undefined) {
  const schemas = pgSchemas(TEST_PG_URL);
  adapters.push({ name: 'postgres', fresh: () => schemas.fresh(), cleanup: () => schemas.dropAll(), runs: 2 });
} else {
  console.log(pgSkipMessage('effective-definitions property test'));
}

afterAll(async () => {
  for (const adapter of adapters) await adapter.cleanup();
});

describe.each(adapters)('definitions over time on $name', (adapter) => {
  test('redefinitions at random instants keep every recorded date, and every answer from the tables equals the fold', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 4, maxLength: 9 }), (actions) => runScenario(adapter.fresh, actions)),
      // Found by this test: a new trigger slot due before the old timetable's last day ended (due slots must stay a prefix).
      // And (seed -567138813): a running 2026-01-04 vanished from `state` once a redefinition to @weekly made its slot not due yet.
      { ...propertyRuns(adapter.runs), examples: [[[{ kind: 'start', pipeline: 0, back: 0 }, { kind: 'redefine', pipeline: 0, schedule: 0, zone: 0, startDay: 0, trigger: false, effective: 0 }, { kind: 'redefine', pipeline: 0, schedule: 3, zone: 0, startDay: 0, trigger: false, effective: 'none' }, { kind: 'start', pipeline: 0, back: 0 }, { kind: 'redefine', pipeline: 0, schedule: 0, zone: 0, startDay: 0, trigger: false, effective: 'none' }]], [[{ kind: 'redefine', pipeline: 0, schedule: 2, zone: 1, startDay: 0, trigger: true, effective: 4 }, { kind: 'start', pipeline: 0, back: 0 }, { kind: 'start', pipeline: 0, back: 0 }, { kind: 'catchup', pipeline: 0 }, { kind: 'start', pipeline: 0, back: 0 }]]] },
    );
  }, 120_000);
});

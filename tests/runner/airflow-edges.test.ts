// Issue 10 through the library: catchup off past the end, resume after an interrupt,
// the pipeline's own max_active_runs, whole local days for a bare --to.
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { openLedger, type Ledger } from '../../src/ledger/ledger.js';
import { catchup } from '../../src/runner/backfill.js';
import { formatDryRun } from '../../src/runner/format-summary.js';
import { planJob } from '../../src/runner/plan-job.js';
import { tempDir } from './cli-helpers.js';

const open: Ledger[] = [];
afterEach(async () => {
  for (const ledger of open.splice(0)) await ledger.close();
});

async function ledgerAt(now: string) {
  const clock = { now: Date.parse(now) };
  const ledger = await openLedger({ db: join(tempDir(), 'runledger.db'), clock: () => clock.now, actor: 'tester' });
  open.push(ledger);
  return { ledger, clock };
}

describe('catchup off never reaches back to an end date in the past (as Airflow)', () => {
  test('when the latest complete interval lies past the end then nothing is due, and the dry run says why', async () => {
    const { ledger } = await ledgerAt('2026-11-10T12:00:00Z');
    await ledger.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-01', end: '2026-11-03', catchup: false });
    const job = await planJob(ledger, { kind: 'catchup', pipeline: 'p' });
    expect(job.plan.slots).toEqual([]);
    expect(job.catchup?.pastEnd).toEqual({ latest: '2026-11-09', end: '2026-11-03T00:00:00+00:00' });
    expect(formatDryRun(job)).toContain("only the latest complete interval before now would run (2026-11-09), and that lies past the pipeline's end");
    const summary = await catchup(ledger, { pipeline: 'p' }, () => ({}));
    expect(summary.runs).toEqual([]);
  });

  test.each([
    { label: 'the end slot is the latest complete interval', now: '2026-11-04T12:00:00Z', expected: ['2026-11-03'] },
    { label: 'an earlier slot is the latest complete interval', now: '2026-11-03T12:00:00Z', expected: ['2026-11-02'] },
  ])('when $label then it runs', async ({ now, expected }) => {
    const { ledger } = await ledgerAt(now);
    await ledger.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-01', end: '2026-11-03', catchup: false });
    const job = await planJob(ledger, { kind: 'catchup', pipeline: 'p' });
    expect(job.plan.slots.map((s) => s.date)).toEqual(expected);
    expect(job.catchup?.pastEnd).toBeUndefined();
  });

  test('when catchup is on then an end in the past still bounds a full catchup', async () => {
    const { ledger } = await ledgerAt('2026-11-10T12:00:00Z');
    await ledger.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-01', end: '2026-11-03', catchup: true });
    const job = await planJob(ledger, { kind: 'catchup', pipeline: 'p' });
    expect(job.plan.slots.map((s) => s.date)).toEqual(['2026-11-01', '2026-11-02', '2026-11-03']);
  });
});

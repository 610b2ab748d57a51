// A date before the pipeline's start (or after its end) is refused saying so, and the off-schedule manual run a
// user then makes shows in `state`, as in `status` and `runs`.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { openLedger } from '../../src/open-ledger.js';
import { tempDir } from '../runner/cli-helpers.js';

const NOW = Date.parse('2026-11-05T01:00:00+07:00');

async function jakarta(extra: { end?: string } = {}) {
  const ledger = await openLedger({ db: join(tempDir(), 'l.db'), clock: () => NOW, actor: 'test' });
  await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta', ...extra });
  return ledger;
}

describe('a date outside the pipeline is refused saying where it lies', () => {
  test('before the start', async () => {
    await using ledger = await jakarta();
    await expect(ledger.start({ pipeline: 'etl', date: '2026-10-30' })).rejects.toMatchObject({
      exitCode: 3,
      message: expect.stringMatching(/^2026-10-30T00:00:00\+07:00 is before etl's start \(its first date is 2026-11-02\); redefine it with an earlier --start/),
    });
  });

  test('after the end', async () => {
    await using ledger = await jakarta({ end: '2026-11-03' });
    await expect(ledger.start({ pipeline: 'etl', date: '2026-11-04' })).rejects.toMatchObject({ exitCode: 3, message: expect.stringContaining("is after etl's end (2026-11-03T00:00:00+07:00)") });
  });
});

describe('off-schedule runs show in state', () => {
  test('a manual run before the start and one between slots are rows of state', async () => {
    await using ledger = await jakarta();
    const early = await ledger.start({ pipeline: 'etl', date: '2026-10-30', runType: 'manual' });
    await ledger.succeed({ runId: early.runId });
    const between = await ledger.start({ pipeline: 'etl', date: '2026-11-04T12:00:00+07:00', runType: 'manual' });
    const view = await ledger.state({ pipeline: 'etl' });
    expect(view.dates.map((d) => `${d.date} ${d.status}${d.offSchedule ? ' off-schedule' : ''}`)).toEqual([
      '2026-10-30T00:00:00+07:00 success off-schedule',
      '2026-11-02 missing',
      '2026-11-03 missing',
      '2026-11-04 missing',
      `2026-11-04T12:00:00+07:00 running off-schedule`,
    ]);
    expect(view.dates.at(-1)?.runId).toBe(between.runId);
    // An explicit range still bounds the rows.
    const ranged = await ledger.state({ pipeline: 'etl', from: '2026-11-02', to: '2026-11-03' });
    expect(ranged.dates.map((d) => d.date)).toEqual(['2026-11-02', '2026-11-03']);
  });
});

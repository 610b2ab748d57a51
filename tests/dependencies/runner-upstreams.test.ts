// The runners with upstreams, in-process on the memory store: --wait-upstream, and backfill --with-downstream.
import { describe, expect, test } from 'vitest';
import { MemoryEventStore } from '../../src/store/memory-event-store.js';
import { Ledger } from '../../src/ledger/ledger.js';
import { catchup } from '../../src/runner/backfill.js';
import { functionTask } from '../../src/runner/function-task.js';
import { runFleet } from '../../src/runner/run-fleet.js';

const NOW = Date.parse('2026-11-04T01:00:00Z');

async function ledgerWith(...defs: Array<Parameters<Ledger['define']>[0]>): Promise<Ledger> {
  const ledger = new Ledger(new MemoryEventStore(), () => NOW, 'tester');
  for (const d of defs) await ledger.define(d);
  return ledger;
}

describe('catchup of one pipeline with --wait-upstream', () => {
  test('a blocked date waits for its upstream date, and starts only after it succeeded', async () => {
    const ledger = await ledgerWith(
      { pipeline: 'raw', schedule: '@daily', start: '2026-11-03' },
      { pipeline: 'report', schedule: '@daily', start: '2026-11-03', upstreams: [{ pipeline: 'raw', mapping: 'overlap' }] },
    );
    const running = catchup(ledger, { pipeline: 'report', waitUpstream: '1m' }, async () => ({ rows: 1 }));
    // The upstream date is filled by someone else while the runner waits.
    const run = await ledger.start({ pipeline: 'raw', date: '2026-11-03' });
    await ledger.succeed({ runId: run.runId });
    const summary = await running;
    expect(summary.runs.map((r) => `${r.date} ${r.status}`)).toEqual(['2026-11-03 success']);
    const { events } = await ledger.log();
    const rawDone = events.find((e) => e.type === 'RunSucceeded' && e.data.pipeline === 'raw')?.position ?? Infinity;
    const reportStarted = events.find((e) => e.type === 'RunStarted' && e.data.pipeline === 'report')?.position ?? -1;
    expect(reportStarted).toBeGreaterThan(rawDone);
  });

  test('after the timeout the date is left alone, saying what it still waits for', async () => {
    const ledger = await ledgerWith(
      { pipeline: 'raw', schedule: '@daily', start: '2026-11-03' },
      { pipeline: 'report', schedule: '@daily', start: '2026-11-03', upstreams: [{ pipeline: 'raw', mapping: 'overlap' }] },
    );
    const summary = await catchup(ledger, { pipeline: 'report', waitUpstream: 1500 }, async () => ({ rows: 1 }));
    expect(summary.runs).toEqual([expect.objectContaining({ date: '2026-11-03', status: 'skipped', skipReason: 'upstream', note: 'not started: still waits for raw 2026-11-03 (missing) after waiting 1s' })]);
    expect((await ledger.log({ types: ['RunStarted'] })).events).toEqual([]);
  });

  test('without it the blocked date is left alone at once and listed', async () => {
    const ledger = await ledgerWith(
      { pipeline: 'raw', schedule: '@daily', start: '2026-11-03' },
      { pipeline: 'report', schedule: '@daily', start: '2026-11-03', upstreams: [{ pipeline: 'raw', mapping: 'overlap' }] },
    );
    const summary = await catchup(ledger, { pipeline: 'report' }, async () => ({ rows: 1 }));
    expect(summary.runs).toEqual([]);
    expect(summary.blocked).toEqual([{ date: '2026-11-03', blockedBy: { pipeline: 'raw', date: '2026-11-03', status: 'missing' } }]);
  });
});

describe('backfill --with-downstream', () => {
  test('reruns the range, then exactly the downstream dates that read it, transitively and in order', async () => {
    const ledger = await ledgerWith(
      { pipeline: 'raw', schedule: '@hourly', start: '2026-11-01', timezone: 'Asia/Jakarta' },
      { pipeline: 'report', schedule: '@daily', start: '2026-11-01', upstreams: [{ pipeline: 'raw', mapping: 'overlap' }] },
      { pipeline: 'pack', schedule: '@daily', start: '2026-11-01', upstreams: [{ pipeline: 'report', mapping: 'previous' }] },
      { pipeline: 'unrelated', schedule: '@daily', start: '2026-11-01' },
    );
    const task = functionTask(async () => ({ rows: 1 }));
    expect((await runFleet(ledger, { kind: 'catchup' }, { taskFor: () => task })).failed).toBe(0);
    const before = (await ledger.log()).events.length;
    // Two Jakarta hours that both lie in the UTC 2nd: report's 2nd reruns, and pack's 3rd (its previous day is the 2nd).
    const summary = await runFleet(ledger, { kind: 'backfill', pipeline: 'raw', from: '2026-11-02T08:00:00+07:00', to: '2026-11-02T09:00:00+07:00', reprocess: 'completed' }, { taskFor: () => task });
    expect(summary.pipelines.map((p) => [p.pipeline, p.runs.map((r) => `${r.date} ${r.status}`)])).toEqual([
      ['raw', ['2026-11-02T08:00:00+07:00 success', '2026-11-02T09:00:00+07:00 success']],
      ['report', ['2026-11-02 success']],
      ['pack', ['2026-11-03 success']],
    ]);
    const events = (await ledger.log()).events.slice(before);
    const position = (type: string, pipeline: string) => events.filter((e) => e.type === type && e.data.pipeline === pipeline).map((e) => e.position);
    expect(Math.min(...position('RunStarted', 'report'))).toBeGreaterThan(Math.max(...position('RunSucceeded', 'raw')));
    expect(Math.min(...position('RunStarted', 'pack'))).toBeGreaterThan(Math.max(...position('RunSucceeded', 'report')));
  });
});

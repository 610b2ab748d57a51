// What an append wakes the scheduler for. Woken by appends alone before any slot falls due, it passes over the
// pipelines with new events and those downstream of them, not over every pipeline; what that pass must still see:
// an upstream's date done by another writer lets its downstream date run, and a pipeline defined meanwhile runs
// its due dates.
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import type { RunTask } from '../../src/runner/run-types.js';
import { runScheduler, type SchedulerEvent } from '../../src/scheduler/run-scheduler.js';
import { tempDir } from './cli-helpers.js';

// The clock stands still: no slot falls due while a test runs, so only appends wake the scheduler.
const NOW = Date.parse('2026-11-05T01:00:00+07:00');
const open: Ledger[] = [];
afterEach(async () => {
  for (const ledger of open.splice(0)) await ledger.close();
});

async function ledgers() {
  const db = join(tempDir(), 'runledger.db');
  const scheduler = await openLedger({ db, clock: () => NOW, actor: 'scheduler' });
  // Another writer on the same ledger, as another process would be.
  const other = await openLedger({ db, clock: () => NOW, actor: 'someone' });
  open.push(scheduler, other);
  return { scheduler, other };
}

/** Runs a scheduler until `until` says so of its events; the dates it ran, as `pipeline date`. */
async function schedule(ledger: Ledger, taskFor: (definition: PipelineDefinition) => RunTask | null, until: (event: SchedulerEvent, seen: SchedulerEvent[]) => boolean, meanwhile: () => Promise<void>) {
  const drain = new AbortController();
  const events: SchedulerEvent[] = [];
  let asleep: () => void = () => {};
  const firstSleep = new Promise<void>((resolve) => (asleep = resolve));
  const done = runScheduler(ledger, {
    taskFor,
    drain: drain.signal,
    watchIntervalMs: 20,
    minPassGapMs: 10,
    onEvent: (event) => {
      events.push(event);
      if (event.event === 'sleep') asleep();
      if (until(event, events)) drain.abort();
    },
  });
  await firstSleep;
  await meanwhile();
  await done;
  return events.filter((e) => e.event === 'ended').map((e) => `${e.pipeline} ${e.date}`);
}

describe('a scheduler woken by appends', () => {
  test('when another writer marks an upstream date succeeded then the downstream date that waited for it runs', async () => {
    const { scheduler, other } = await ledgers();
    await other.define({ pipeline: 'orders_raw', schedule: '@daily', start: '2026-11-04', timezone: 'Asia/Jakarta' });
    await other.define({ pipeline: 'sales_report', schedule: '@daily', start: '2026-11-04', timezone: 'Asia/Jakarta', upstreams: [{ pipeline: 'orders_raw', mapping: 'overlap' }] });
    // Only the downstream pipeline has a task: its upstream's dates are done by someone else.
    const task: RunTask = async () => ({ status: 'success', metrics: {}, exitCode: 0 });
    const ran = await schedule(
      scheduler,
      (d) => (d.pipeline === 'sales_report' ? task : null),
      (event) => event.event === 'ended',
      async () => {
        expect((await scheduler.state({ pipeline: 'sales_report' })).dates.map((d) => d.status)).not.toContain('success');
        await other.mark({ pipeline: 'orders_raw', dates: ['2026-11-04'], success: true, reason: 'loaded by hand' });
      },
    );
    expect(ran).toEqual(['sales_report 2026-11-04']);
  });

  test('when another writer defines a pipeline whose dates are due then they run', async () => {
    const { scheduler, other } = await ledgers();
    await other.define({ pipeline: 'orders_raw', schedule: '@daily', start: '2026-11-03', timezone: 'Asia/Jakarta' });
    const task: RunTask = async () => ({ status: 'success', metrics: {}, exitCode: 0 });
    const ran = await schedule(
      scheduler,
      () => task,
      (_event, seen) => seen.filter((e) => e.event === 'ended').length === 4,
      async () => {
        await other.define({ pipeline: 'refunds', schedule: '@daily', start: '2026-11-03', timezone: 'Asia/Jakarta' });
      },
    );
    expect(ran.sort()).toEqual(['orders_raw 2026-11-03', 'orders_raw 2026-11-04', 'refunds 2026-11-03', 'refunds 2026-11-04']);
  });
});

describe('a scheduler asked to stop', () => {
  test('when the drain comes while it plans its sleep (nothing due: it would sleep for weeks) then it stops at once', { timeout: 30_000 }, async () => {
    const { scheduler } = await ledgers();
    const drain = new AbortController();
    const events: SchedulerEvent[] = [];
    // Drained from the 'sleep' event itself: after the pass checked the drain, before the sleep listens for it (as a
    // SIGTERM during the wake's planning is). A scheduler that missed it hung here until the test's timeout.
    await runScheduler(scheduler, {
      taskFor: () => null,
      drain: drain.signal,
      onEvent: (event) => {
        events.push(event);
        if (event.event === 'sleep') drain.abort();
      },
    });
    expect(events.filter((e) => e.event === 'sleep')).toHaveLength(1);
    expect(events.at(-1)?.event).toBe('sleep');
  });
});

import { describe, expect, test } from 'vitest';
import { MemoryEventStore } from '../../src/store/memory-event-store.js';
import { LedgerError } from '../../src/errors.js';
import { Ledger } from '../../src/open-ledger.js';
import { formatSummary, summaryJson } from '../../src/runner/format-summary.js';
import type { AppendRequest, EventStore } from '../../src/store/event-store.js';

const NOW = Date.parse('2026-11-05T01:00:00Z');

/** A memory store whose appends of the chosen event types fail with a store error while `failing()` says so. */
function flakyStore(types: string[], failing: () => boolean): { store: EventStore; refused: () => number } {
  const inner = new MemoryEventStore();
  let refused = 0;
  const store = new Proxy(inner, {
    get(target, key, receiver) {
      if (key === 'append') {
        return async (requests: AppendRequest[]) => {
          if (requests.some((r) => r.events.some((e) => types.includes(e.type))) && failing()) {
            refused += 1;
            throw new LedgerError('store.busy', 'the ledger stayed locked by another writer; retry in a moment');
          }
          return target.append(requests);
        };
      }
      const value = Reflect.get(target, key, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store, refused: () => refused };
}

async function definedLedger(store: EventStore): Promise<Ledger> {
  const ledger = new Ledger(store, () => NOW, 'test');
  await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-02' });
  return ledger;
}

describe('a store error while a backfill records its runs', () => {
  test('a finished run whose outcome cannot be written at first is retried until it is recorded', async () => {
    let tries = 0;
    const { store, refused } = flakyStore(['RunSucceeded'], () => ++tries <= 3);
    const ledger = await definedLedger(store);
    const summary = await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-03' }, async () => ({ rows: 1 }));
    expect(refused()).toBe(3);
    expect(summary).toMatchObject({ succeeded: 2, failed: 0 });
    const state = await ledger.state({ pipeline: 'etl_orders', to: '2026-11-03' });
    expect(state.dates.map((d) => d.status)).toEqual(['success', 'success']);
  });

  test('when the store stays unwritable past the lease, the summary names the date it could not record instead of throwing', async () => {
    const { store } = flakyStore(['RunSucceeded'], () => true);
    const ledger = await definedLedger(store);
    const summary = await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-02', leaseMs: 2_000 }, async () => ({ rows: 1 }));
    expect(summary.runs).toHaveLength(1);
    expect(summary.runs[0]).toMatchObject({ date: '2026-11-02', status: 'unrecorded', code: 'unrecorded' });
    expect(summary.runs[0]?.error).toContain('the run succeeded but its outcome could not be recorded (the ledger stayed locked by another writer');
    // The command succeeded: it is not counted as a failure, and the readable summary says what happened.
    expect(summary).toMatchObject({ succeeded: 0, failed: 0, unrecorded: 1 });
    expect(summaryJson(summary)).toMatchObject({ unrecorded: 1, runs: [{ status: 'unrecorded' }] });
    const text = formatSummary(summary);
    expect(text).toMatch(/2026-11-02 .* unrecorded /);
    expect(text).toContain('0 succeeded, 0 failed, 1 unrecorded, 0 skipped');
  }, 20_000);

  test('a store error claiming the next date stops the runner with a summary that says why the rest did not start', async () => {
    let starts = 0;
    const { store } = flakyStore(['RunStarted'], () => ++starts > 1);
    const ledger = await definedLedger(store);
    const summary = await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-04' }, async () => ({ rows: 1 }));
    expect(summary.storeError).toContain('stayed locked by another writer');
    expect(summary.runs.map((r) => [r.date, r.status])).toEqual([
      ['2026-11-02', 'success'],
      ['2026-11-03', 'skipped'],
      ['2026-11-04', 'skipped'],
    ]);
    expect(summary.runs[2]?.note).toContain('not started: the ledger could not be read or written');
    // The readable summary keeps that reason: no run failed, and --continue-on-failure would not help.
    const text = formatSummary(summary);
    expect(text).toContain('2 slots not started (2026-11-03 .. 2026-11-04): the ledger could not be read or written (the ledger stayed locked by another writer; retry in a moment); fix the store, then rerun the same command');
    expect(text).not.toMatch(/after the failure|continue-on-failure/);
  });

  test('when the very first claim fails, the summary still says the ledger failed, not an earlier run', async () => {
    const { store } = flakyStore(['RunStarted'], () => true);
    const ledger = await definedLedger(store);
    const summary = await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-04' }, async () => ({ rows: 1 }));
    const text = formatSummary(summary);
    expect(text).toContain('3 slots not started (2026-11-02 .. 2026-11-04): the ledger could not be read or written');
    expect(text).not.toMatch(/after the failure|continue-on-failure/);
  });

  test('an outcome that could not be recorded stops the runner, and the dates left say the ledger failed', async () => {
    const { store } = flakyStore(['RunSucceeded'], () => true);
    const ledger = await definedLedger(store);
    const summary = await ledger.backfill({ pipeline: 'etl_orders', from: '2026-11-02', to: '2026-11-04', leaseMs: 2_000 }, async () => ({ rows: 1 }));
    expect(summary.runs.map((r) => r.status)).toEqual(['unrecorded', 'skipped', 'skipped']);
    const text = formatSummary(summary);
    expect(text).toContain('2 slots not started (2026-11-03 .. 2026-11-04): the ledger could not be read or written (the ledger stayed locked by another writer');
    expect(text).not.toMatch(/after the failure|continue-on-failure/);
  }, 20_000);
});

import { describe, expect, test } from 'vitest';
import { MemoryEventStore } from '../../src/audit/memory-event-store.js';
import { LedgerError } from '../../src/errors.js';
import { Ledger } from '../../src/ledger/open-ledger.js';
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
    expect(summary.runs[0]).toMatchObject({ date: '2026-11-02', status: 'failed', code: 'unrecorded' });
    expect(summary.runs[0]?.error).toContain('the run succeeded but its outcome could not be recorded (the ledger stayed locked by another writer');
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
  });
});

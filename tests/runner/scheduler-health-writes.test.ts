// The scheduler's health row is written once for a burst of changes (each write is a durable transaction on
// SQLite, on the scheduler's own thread), and its last state is never lost: close writes it at once.
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { Ledger } from '../../src/ledger/ledger.js';
import { recordHealth } from '../../src/scheduler/scheduler-health.js';

type Saved = { id: string; updatedAt: string; body: string };

function fakeLedger(saved: Saved[]): Ledger {
  const schedulers = { save: async (row: Saved) => void saved.push(row), list: async () => [], remove: async () => undefined };
  return { store: { schedulers }, now: () => Date.now(), newId: () => 'id1' } as unknown as Ledger;
}

afterEach(() => vi.useRealTimers());

describe('the scheduler health row', () => {
  test('when 100 runs start in one burst then the row is written once for all of them, with all 100 in flight', async () => {
    vi.useFakeTimers();
    const saved: Saved[] = [];
    const health = await recordHealth(fakeLedger(saved), { parallel: 64, once: false, pipelines: null });
    expect(saved).toHaveLength(1);
    for (let i = 0; i < 100; i++) {
      health.update((row) => ({ ...row, inFlight: [...row.inFlight, { pipeline: `p${i}`, date: '2026-11-01', runId: `r${i}`, attempt: 1, startedAt: '2026-11-01T00:00:00.000Z' }] }));
    }
    await vi.advanceTimersByTimeAsync(1_000);
    expect(saved).toHaveLength(2);
    expect((JSON.parse(saved[1]?.body ?? '{}') as { inFlight: unknown[] }).inFlight).toHaveLength(100);
    await health.close();
  });

  test('when it closes right after a change then the stopped row is written at once', async () => {
    vi.useFakeTimers();
    const saved: Saved[] = [];
    const health = await recordHealth(fakeLedger(saved), { parallel: 4, once: true, pipelines: null });
    health.update((row) => ({ ...row, passes: row.passes + 1 }));
    await health.close();
    expect(JSON.parse(saved.at(-1)?.body ?? '{}')).toMatchObject({ state: 'stopped', passes: 1, inFlight: [] });
    // Nothing is written after the stopped row.
    const count = saved.length;
    await vi.advanceTimersByTimeAsync(30_000);
    expect(saved).toHaveLength(count);
  });
});

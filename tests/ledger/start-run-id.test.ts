import { describe, expect, test } from 'vitest';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';

const NOW = Date.parse('2026-11-10T00:00:00Z');

async function ledgerWithRun() {
  const ledger = openMemoryLedger({ clock: () => NOW });
  await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-02' });
  const first = await ledger.start({ pipeline: 'etl', date: '2026-11-02', runId: 'producer-run-1' });
  return { ledger, first };
}

describe('start with a run id of the caller (OpenLineage keeps the producer runId)', () => {
  test('the run gets that id; the same id again is refused, on any date', async () => {
    const { ledger, first } = await ledgerWithRun();
    expect(first.runId).toBe('producer-run-1');
    await expect(ledger.start({ pipeline: 'etl', date: '2026-11-03', runId: 'producer-run-1' })).rejects.toMatchObject({ code: 'ledger.runIdTaken', exitCode: 3 });
    await expect(ledger.start({ pipeline: 'etl', date: '2026-11-03', runId: 'two words' })).rejects.toMatchObject({ code: 'input.invalidRunId' });
  });

  test('supersede fails the running run it names (code superseded) and starts the next attempt', async () => {
    const { ledger } = await ledgerWithRun();
    const next = await ledger.start({ pipeline: 'etl', date: '2026-11-02', runId: 'producer-run-2', supersede: { runId: 'producer-run-1', message: 'superseded by producer-run-2' } });
    expect(next.attempt).toBe(2);
    const runs = (await ledger.runs({ pipeline: 'etl' })).runs.map((r) => [r.runId, r.status, r.error]);
    expect(runs).toEqual([['producer-run-1', 'failed', 'superseded by producer-run-2'], ['producer-run-2', 'running', null]]);
    await expect(ledger.succeed({ runId: 'producer-run-1' })).rejects.toMatchObject({ code: 'ledger.staleRun' });
  });

  test('supersede naming another run than the running one is the ordinary refusal: it never ends a run it did not see', async () => {
    const { ledger } = await ledgerWithRun();
    await expect(
      ledger.start({ pipeline: 'etl', date: '2026-11-02', runId: 'producer-run-3', supersede: { runId: 'producer-run-0', message: 'x' } }),
    ).rejects.toMatchObject({ code: 'ledger.alreadyRunning' });
    expect((await ledger.runs({ pipeline: 'etl' })).runs).toHaveLength(1);
  });
});

import { expect, test } from 'vitest';
import { chainVerifier } from '../../src/ops/chain-verifier.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';

test('the first walk of a long chain lets timers run between its batches, and finds the chain intact', async () => {
  let now = Date.parse('2026-11-05T00:00:00Z');
  const ledger = openMemoryLedger({ clock: () => now });
  await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2025-01-01' });
  for (let day = 0; day < 300; day++) {
    const date = new Date(Date.parse('2025-01-01T00:00:00Z') + day * 86_400_000).toISOString().slice(0, 10);
    const run = await ledger.start({ pipeline: 'etl_orders', date });
    await ledger.succeed({ runId: run.runId });
  }
  now += 1000;
  const verifier = chainVerifier(ledger.store, () => now);
  let settled = false;
  const walk = verifier.check().finally(() => (settled = true));
  // A timer set as the walk starts fires before it ends: the walk does not hold the event loop for its 601 events.
  const timerSawWalkRunning = await new Promise<boolean>((resolve) => setTimeout(() => resolve(!settled), 0));
  const result = await walk;
  expect(timerSawWalkRunning).toBe(true);
  expect(result).toMatchObject({ ok: true, events: 601, firstBadPosition: null });
  expect(result.head.position).toBe(601);
});

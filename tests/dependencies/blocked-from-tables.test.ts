// Blocked dates read through the read models (status's walk over the due slots after complete-through,
// a state page's rows) equal what the fold says, on random ledgers of three chained pipelines.
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { isLedgerError } from '../../src/errors.js';
import { Ledger, openLedger } from '../../src/open-ledger.js';
import { tempDir } from '../support/run-cli.js';
import { foldOnly } from '../support/fold-only.js';

test('status (blocked, firstBlocked, pending upstream), state pages and pending from the tables equal the fold', async () => {
  let seed = 7;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  let blockedSeen = 0;
  for (let round = 0; round < 6; round++) {
    let now = Date.parse('2026-01-12T04:00:00Z');
    const clock = () => now;
    const ledger = await openLedger({ db: join(tempDir(), 'ledger.db'), clock, actor: 't', checkpointAfter: 0 });
    await ledger.define({ pipeline: 'raw', schedule: '@hourly', start: '2026-01-01' });
    await ledger.define({ pipeline: 'report', schedule: '@daily', start: '2026-01-01', upstreams: [{ pipeline: 'raw', mapping: 'overlap' }] });
    await ledger.define({ pipeline: 'pack', schedule: '@daily', start: '2026-01-01', timezone: 'Asia/Jakarta', upstreams: [{ pipeline: 'report', mapping: 'previous' }] });
    for (let i = 0; i < 250; i++) {
      const pipeline = ['raw', 'report', 'pack'][rnd(3)] ?? 'raw';
      const day = String(1 + rnd(11)).padStart(2, '0');
      const date = pipeline === 'raw' ? `2026-01-${day}T${String(rnd(24)).padStart(2, '0')}:00:00Z` : `2026-01-${day}`;
      try {
        const k = rnd(10);
        if (k === 9) {
          await ledger.clear({ pipeline, dates: [date], reason: 'test' });
          continue;
        }
        const run = await ledger.start({ pipeline, date, force: true });
        if (k < 5 || (pipeline !== 'raw' && k < 7)) await ledger.succeed({ runId: run.runId });
        else if (k < 8) await ledger.fail({ runId: run.runId, error: 'bad' });
      } catch (error) {
        if (!isLedgerError(error)) throw error;
      }
    }
    const folding = new Ledger(foldOnly(ledger.store), clock, 't', { checkpointAfter: 0 });
    // Now, and three days on, when the runs left running have stalled.
    for (const later of [0, 3 * 86_400_000]) {
      now += later;
      for (const pipeline of ['report', 'pack']) {
        const fromTables = await ledger.pipelineStatus({ pipeline, nowMs: now });
        expect(fromTables).toEqual(await folding.pipelineStatus({ pipeline, nowMs: now }));
        blockedSeen += fromTables.status.blocked;
        expect(await ledger.state({ pipeline, limit: 5 })).toEqual(await folding.state({ pipeline, limit: 5 }));
        expect(await ledger.state({ pipeline, from: '2026-01-04', limit: 3 })).toEqual(await folding.state({ pipeline, from: '2026-01-04', limit: 3 }));
        expect(await ledger.pending({ pipeline })).toEqual(await folding.pending({ pipeline }));
      }
      // Every row at once: the pipelines with upstreams and the one without, as the fold gives each.
      expect(await ledger.pipelineStatuses({ nowMs: now })).toEqual(await folding.pipelineStatuses({ nowMs: now }));
    }
    await ledger.close();
  }
  expect(blockedSeen).toBeGreaterThan(0);
}, 300_000);

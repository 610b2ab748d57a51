import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';
import { loadAuditTail } from '../../src/views/load-audit-tail.js';
import { loadHistory } from '../../src/views/load-pages.js';
import { tempDir } from '../support/run-cli.js';

// The report's audit section reads only the events of the types that make audit entries: whatever it
// skips, it lists what the pipeline's whole fold lists (every kind of entry), newest first, and counts them all.

const dir = tempDir('runledger-audit-tail-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A pipeline with an entry of every kind (a definition, a clear, a forced re-run, a takeover of an abandoned run, a mark, a redefinition) among runs that make none. */
async function history(ledger: Ledger, advance: (ms: number) => void): Promise<void> {
  await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-02', reason: 'new' });
  await ledger.define({ pipeline: 'other', schedule: '@daily', start: '2026-11-02' });
  for (const date of ['2026-11-02', '2026-11-03']) {
    const run = await ledger.start({ pipeline: 'etl', date });
    await ledger.succeed({ runId: run.runId, metrics: { rows: 1 } });
    await ledger.succeed({ runId: (await ledger.start({ pipeline: 'other', date })).runId });
  }
  await ledger.clear({ pipeline: 'etl', dates: ['2026-11-02'], reason: 'bad file' });
  await ledger.fail({ runId: (await ledger.start({ pipeline: 'etl', date: '2026-11-03', force: true, reason: 'again' })).runId, error: 'boom' });
  await ledger.start({ pipeline: 'etl', date: '2026-11-04', lease: 60_000 });
  advance(120_000);
  await ledger.start({ pipeline: 'etl', date: '2026-11-04' });
  await ledger.mark({ pipeline: 'etl', dates: ['2026-11-02'], skipped: true, reason: 'not needed' });
  await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-02', catchup: false, reason: 'no catchup' });
}

describe('loadAuditTail', () => {
  test.each(['memory', 'sqlite'])('%s: the entries of the audit event types are the whole fold’s, the newest kept, all counted', async (kind) => {
    let now = Date.parse('2026-11-05T01:00:00Z');
    const clock = () => now;
    const ledger = kind === 'memory' ? openMemoryLedger({ clock, actor: 'alice' }) : await openLedger({ db: join(dir, 'ledger.db'), clock, actor: 'alice' });
    try {
      await history(ledger, (ms) => (now += ms));
      const head = (await ledger.store.head()).position;
      const folded = (await loadHistory(ledger, 'etl', head)).audit;
      expect(new Set(folded.map((e) => e.kind))).toEqual(new Set(['defined', 'cleared', 'forced', 'takeover', 'abandoned', 'marked', 'redefined']));
      const tail = await loadAuditTail(ledger, 'etl', head, 500);
      expect(tail).toEqual({ entries: [...folded].reverse(), total: folded.length });
      const newest = await loadAuditTail(ledger, 'etl', head, 2);
      expect(newest).toEqual({ entries: [...folded].reverse().slice(0, 2), total: folded.length });
    } finally {
      await ledger.close();
    }
  });
});

// Consumer positions beside the events, every adapter: outside the hash chain, never moving back,
// surviving a reopen; and PostgreSQL's NOTIFY waking listeners. `verify` and `export` are untouched.
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { exportLedger } from '../../src/audit/export-ledger.js';
import { verifyChain } from '../../src/audit/verify-chain.js';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { watchAppends } from '../../src/ledger/watch-appends.js';
import { sha256Hex } from '../../src/store/seal-events.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { tempDir } from '../support/run-cli.js';

type Backend = { name: string; open(db?: string): Promise<{ ledger: Ledger; db: string }> };
const schemas = TEST_PG_URL ? pgSchemas(TEST_PG_URL) : null;
afterAll(async () => schemas?.dropAll());
const clock = () => Date.parse('2026-11-10T00:00:00Z');
const backends: Backend[] = [
  { name: 'memory', open: async () => ({ ledger: openMemoryLedger({ clock }), db: '' }) },
  {
    name: 'sqlite',
    open: async (db = join(tempDir('runledger-consumers-'), 'ledger.db')) => ({ ledger: await openLedger({ db, clock }), db }),
  },
];
if (schemas) backends.push({ name: 'postgres', open: async (db) => { const url = db ?? (await schemas.fresh()); return { ledger: await openLedger({ db: url, clock }), db: url }; } });
else console.log(pgSkipMessage('the consumer position contract'));

async function seed(ledger: Ledger): Promise<void> {
  await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-01' });
  const run = await ledger.start({ pipeline: 'etl', date: '2026-11-01' });
  await ledger.fail({ runId: run.runId, error: 'boom' });
}

describe.each(backends)('$name consumer positions', (backend) => {
  test('a consumer never seen has no position; a saved one reads back, never moves back, and is listed by name', async () => {
    const { ledger } = await backend.open();
    try {
      await seed(ledger);
      const store = ledger.store;
      expect(await store.consumers.get('alerts')).toBeNull();
      expect(await store.consumers.list()).toEqual([]);
      await store.consumers.save('alerts', 2, '2026-11-10T00:00:00.000Z');
      await store.consumers.save('alerts', 1, '2026-11-10T00:00:01.000Z');
      await store.consumers.save('billing', 3, '2026-11-10T00:00:02.000Z');
      expect(await store.consumers.get('alerts')).toBe(2);
      expect(await store.consumers.list()).toEqual([
        { name: 'alerts', position: 2, updatedAt: '2026-11-10T00:00:01.000Z' },
        { name: 'billing', position: 3, updatedAt: '2026-11-10T00:00:02.000Z' },
      ]);
    } finally {
      await ledger.close();
    }
  });

  test('positions live outside the chain: verify still passes and the export is byte for byte the same', async () => {
    const { ledger } = await backend.open();
    try {
      await seed(ledger);
      const exported = async () => {
        let text = '';
        for await (const chunk of exportLedger(ledger.store, { exportedAt: '2026-11-10T00:00:00Z', toolVersion: 'test' })) text += chunk;
        return text;
      };
      const before = await exported();
      await ledger.store.consumers.save('alerts', 3, '2026-11-10T00:00:00.000Z');
      const report = await verifyChain(ledger.store.readRaw(), { sha256: sha256Hex });
      expect(report).toMatchObject({ ok: true, events: 3 });
      const after = await exported();
      expect(after).toBe(before);
      expect(after).not.toContain('alerts');
    } finally {
      await ledger.close();
    }
  });

  test.skipIf(backend.name === 'memory')('a position survives closing and reopening the ledger', async () => {
    const first = await backend.open();
    await seed(first.ledger);
    await first.ledger.store.consumers.save('alerts', 3, '2026-11-10T00:00:00.000Z');
    await first.ledger.close();
    const again = await backend.open(first.db);
    try {
      expect(await again.ledger.store.consumers.get('alerts')).toBe(3);
    } finally {
      await again.ledger.close();
    }
  });
});

describe.skipIf(schemas === null)('postgres LISTEN/NOTIFY', () => {
  test('an append by another connection wakes a listener through NOTIFY, with polling all but off', async () => {
    const db = await (schemas as NonNullable<typeof schemas>).fresh();
    const watcher = await openLedger({ db, clock });
    const writer = await openLedger({ db, clock });
    try {
      await seed(writer);
      const heads: number[] = [];
      let woke: () => void = () => undefined;
      const woken = new Promise<void>((resolve) => (woke = resolve));
      // A ten-minute poll: only the NOTIFY of the append can wake it within the test's timeout.
      const stop = await watchAppends(watcher.store, (head) => {
        heads.push(head.position);
        woke();
      }, { notifiedIntervalMs: 600_000 });
      const run = await writer.start({ pipeline: 'etl', date: '2026-11-02' });
      await woken;
      await stop();
      expect(heads.at(-1)).toBeGreaterThanOrEqual(4);
      expect(run.runId).toBeTruthy();
    } finally {
      await watcher.close();
      await writer.close();
    }
  });
});

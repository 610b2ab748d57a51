// A durable consumer killed with SIGKILL 20 times (RUNLEDGER_TEST_KILLS=N for more), on SQLite and PostgreSQL: every
// event is handed over at least once, in order, none skipped; a kill between delivery and acknowledgement hands
// that event over again. Needs the built library (`npm run build`).
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { spawnKillable } from '../support/killable-process.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { tempDir } from '../support/run-cli.js';

// A hang guard, not a speed check: KILLS + 1 process lives per store, beside other test files on a loaded machine.
vi.setConfig({ testTimeout: 600_000 });

const WORKER = resolve(import.meta.dirname, 'consumer-worker.mjs');
const fromEnv = Number(process.env['RUNLEDGER_TEST_KILLS'] ?? '');
// Half the lives are killed right on a delivery, half at a random point after a second append.
const KILLS = Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 20;
/** How long the worker holds each event before acknowledging it: long enough for a kill to land in between. */
const HOLD_MS = 100;

type Backend = { name: string; fresh(): Promise<string> };
const schemas = TEST_PG_URL ? pgSchemas(TEST_PG_URL) : null;
afterAll(async () => schemas?.dropAll());
const backends: Backend[] = [{ name: 'sqlite', fresh: async () => join(tempDir('runledger-kill-'), 'ledger.db') }];
if (schemas) backends.push({ name: 'postgres', fresh: () => schemas.fresh() });
else console.log(pgSkipMessage('the consumer kill test'));

/** One worker life: `firstDelivery` resolves with its first `delivered` position, or null if it exited first. */
function startWorker(db: string, out: string): { child: ChildProcess; firstDelivery: Promise<number | null>; exited: Promise<void> } {
  const worker = spawnKillable([WORKER, db, out, String(HOLD_MS)]);
  const firstDelivery = worker.firstMatch(/delivered (\d+)/).then((match) => {
    if (match === null && worker.stderr().trim() !== '') console.error(worker.stderr());
    return match === null ? null : Number(match[1]);
  });
  return { child: worker.child, firstDelivery, exited: worker.exited };
}

function positions(out: string): number[] {
  if (!existsSync(out)) return [];
  return readFileSync(out, 'utf8').trimEnd().split('\n').filter(Boolean).map((line) => (JSON.parse(line) as { position: number }).position);
}

async function failDate(ledger: Ledger, day: number): Promise<void> {
  const date = new Date(Date.parse('2026-01-01T00:00:00Z') + day * 86_400_000).toISOString().slice(0, 10);
  const run = await ledger.start({ pipeline: 'etl', date });
  await ledger.fail({ runId: run.runId, error: `boom ${date}` });
}

describe.each(backends)('a consumer killed $name', (backend) => {
  test(`${KILLS} SIGKILLs: every RunFailed at least once, in order, none skipped; a kill after delivery redelivers that event`, async () => {
    const db = await backend.fresh();
    const out = join(tempDir('runledger-kill-out-'), 'handled.jsonl');
    const ledger = await openLedger({ db, clock: () => Date.parse('2026-12-31T00:00:00Z'), actor: 'killer-test' });
    await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-01-01' });
    let day = 0;
    for (; day < 10; day++) await failDate(ledger, day);
    const killedAfterDelivery: number[] = [];
    try {
      for (let kill = 0; kill < KILLS; kill++) {
        // Something new every life, appended while no consumer runs; the rest arrive during its life.
        await failDate(ledger, day++);
        const worker = startWorker(db, out);
        const first = await worker.firstDelivery;
        expect(first, 'each life delivers something before it is killed').not.toBeNull();
        if (kill % 2 === 0) {
          // Right on the delivery: its acknowledgement is HOLD_MS away, so this one must come again.
          worker.child.kill('SIGKILL');
          killedAfterDelivery.push(first as number);
        } else {
          await failDate(ledger, day++);
          await new Promise((r) => setTimeout(r, Math.floor(Math.random() * HOLD_MS * 2)));
          worker.child.kill('SIGKILL');
        }
        await worker.exited;
      }
      // A last life runs to the end, and is stopped politely.
      const expected: number[] = [];
      for await (const batch of ledger.store.read()) for (const e of batch) if (e.type === 'RunFailed') expected.push(e.position);
      const last = startWorker(db, out);
      for (let i = 0; i < 3000 && !expected.every((p) => positions(out).includes(p)); i++) await new Promise((r) => setTimeout(r, 20));
      last.child.kill('SIGTERM');
      await last.exited;

      const handled = positions(out);
      const firsts = handled.filter((p, i) => handled.indexOf(p) === i);
      expect(firsts).toEqual(expected);
      // In order: a redelivery is only ever of the event in hand, so positions never go back.
      expect(handled.every((p, i) => i === 0 || p >= (handled[i - 1] as number))).toBe(true);
      for (const p of killedAfterDelivery) expect(handled.filter((h) => h === p).length, `event ${p} killed after delivery`).toBeGreaterThanOrEqual(2);
      expect(await ledger.store.consumers.get('killer')).toBe((await ledger.store.head()).position);
    } finally {
      await ledger.close();
    }
  });
});

import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { RecordedEvent } from '../../events/recorded-event.js';
import { evolve, initialState } from '../../projections/pipeline-state.js';
import { isLedgerError } from '../../src/errors.js';
import { Ledger } from '../../src/ledger/ledger.js';
import type { RawEvent } from '../../src/store/event-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-event-store.js';
import { openMemoryLedger } from '../../src/testing/index.js';

const P = 'etl';
const DAYS = ['2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05'];

type Op = { kind: 'start' | 'force' | 'succeed' | 'fail' | 'heartbeat' | 'clear'; day: number; minutes: number };

const op = fc.record({
  kind: fc.constantFrom<Op['kind']>('start', 'force', 'succeed', 'fail', 'heartbeat', 'clear'),
  day: fc.nat({ max: DAYS.length - 1 }),
  // Time moves between operations, sometimes past a lease (60 min), sometimes not at all.
  minutes: fc.constantFrom(0, 1, 30, 90, 24 * 60),
});

/** Drives a real SQLite ledger through the facade; refusals are part of the history, not failures. */
async function history(ops: Op[]): Promise<{ ledger: Ledger; events: RecordedEvent[]; rows: RawEvent[] }> {
  let now = Date.parse('2026-11-04T06:00:00Z');
  const ledger = new Ledger(openSqliteStore({ path: ':memory:', create: true }), () => now, 'prop');
  await ledger.define({ pipeline: P, schedule: '@daily', start: DAYS[0] as string, leaseMs: 3_600_000 });
  for (const { kind, day, minutes } of ops) {
    now += minutes * 60_000;
    const date = DAYS[day] as string;
    try {
      if (kind === 'start' || kind === 'force') await ledger.start({ pipeline: P, date, force: kind === 'force' });
      else if (kind === 'clear') await ledger.clear({ pipeline: P, dates: [date], reason: 'prop' });
      else {
        const current = (await ledger.pipeline(P)).state.dates.get(date);
        if (!current) continue;
        if (kind === 'succeed') await ledger.succeed({ runId: current.runId, metrics: { rows: day } });
        else if (kind === 'fail') await ledger.fail({ runId: current.runId, error: 'boom' });
        else await ledger.heartbeat({ runId: current.runId });
      }
    } catch (error) {
      if (!isLedgerError(error)) throw error;
    }
  }
  const events: RecordedEvent[] = [];
  for await (const batch of ledger.store.read()) events.push(...batch);
  const rows: RawEvent[] = [];
  for await (const batch of ledger.store.readRaw()) rows.push(...batch);
  return { ledger, events, rows };
}

/** The ledger as it stood right after position p: only the prefix, with "now" the time of event p. */
function prefixLedger(rows: RawEvent[], events: RecordedEvent[], p: number): Ledger {
  const at = Date.parse((events[p - 1] as RecordedEvent).recordedAt);
  return openMemoryLedger({ rows: rows.slice(0, p), clock: () => at });
}

async function views(ledger: Ledger, asOf?: { position: number } | { instant: string }) {
  const a = asOf ? { asOf } : {};
  return {
    state: await ledger.state({ pipeline: P, ...a }),
    watermark: await ledger.watermark({ pipeline: P, ...a }),
    pending: await ledger.pending({ pipeline: P, ...a }),
    runs: await ledger.runs({ pipeline: P, ...a }),
    log: (await ledger.log({ pipeline: P, ...a })).events,
  };
}

describe('S13 time travel', () => {
  test('--as-of at every position equals a fold of that prefix, and every view equals the prefix ledger at that moment', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 20 }), async (ops) => {
        const { ledger, events, rows } = await history(ops);
        for (let p = 1; p <= events.length; p++) {
          const folded = events.slice(0, p).reduce(evolve, initialState(P));
          expect((await ledger.pipeline(P, { position: p })).state).toEqual(folded);
          const prefix = prefixLedger(rows, events, p);
          expect(await views(ledger, { position: p })).toEqual(await views(prefix));
        }
        await ledger.close();
      }),
      { numRuns: 40 },
    );
  });

  test('--as-of <instant> is the last position recorded at or before it, with that instant as now', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 15 }), fc.nat(), async (ops, pick) => {
        const { ledger, events, rows } = await history(ops);
        const probe = events[pick % events.length] as RecordedEvent;
        // One millisecond later: the instant falls between this moment's events and the next moment's.
        const instant = new Date(Date.parse(probe.recordedAt) + 1).toISOString();
        const p = events.filter((e) => Date.parse(e.recordedAt) <= Date.parse(instant)).length;
        const prefix = openMemoryLedger({ rows: rows.slice(0, p), clock: () => Date.parse(instant) });
        expect(await views(ledger, { instant })).toEqual(await views(prefix));
        await ledger.close();
      }),
      { numRuns: 40 },
    );
  });

  test('a position past the head is refused rather than answered with today', async () => {
    const { ledger, events } = await history([{ kind: 'start', day: 0, minutes: 0 }]);
    await expect(ledger.state({ pipeline: P, asOf: { position: events.length + 1 } })).rejects.toMatchObject({ code: 'input.asOfBeyondHead' });
    await ledger.close();
  });
});

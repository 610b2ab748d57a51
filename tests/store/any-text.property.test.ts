import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { verifyProjections } from '../../src/audit/verify-projections.js';
import { isLedgerError } from '../../src/errors.js';
import { Ledger, openLedger } from '../../src/open-ledger.js';
import type { EventStore, RawEvent } from '../../src/store/event-store.js';
import { openStore } from '../../src/store/open-store.js';
import { foldOnly } from '../support/fold-only.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { tempDir } from '../support/run-cli.js';
import { propertyRuns } from '../support/property-runs.js';

// Any text a writer sends (lone surrogates, NUL, bidi marks, emoji, 4-byte characters, terminal controls) goes
// through every text field of every library write on both stores: ill-formed UTF-16 is refused naming its field,
// with nothing written; anything else is recorded, and the read models stay equal to a fresh fold of the events,
// after a rebuild and after an import of the same rows.

const START = Date.parse('2026-01-12T00:00:00Z');

/** JavaScript's own answer (Node 20's `String#isWellFormed`), not runledger's. */
const isWellFormed = (text: string): boolean => (String.prototype as unknown as { isWellFormed(this: string): boolean }).isWellFormed.call(text);

const specials = ['\ud800', '\udfff', '\udc00\ud800', '\u0000', '\u202e', '\u2066', '\u200f', '😀', '\u{10ffff}', '\u{1f1eb}\u{1f1f7}', '\x1b]0;pwned\x07', '\x1b[2J', '\r', '\b', '\x7f', '\u009b', 'é'];
const text: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: fc.constantFrom(...specials, 'a', ' '), maxLength: 12 }),
  // An error longer than a row's excerpt, with a pair or a lone surrogate where the excerpt is cut.
  fc.tuple(fc.nat(3), fc.constantFrom('😀', '\ud83d', '\u0000', 'x')).map(([shift, c]) => `${'e'.repeat(237 + shift)}${c}${'z'.repeat(10)}`),
);

type Field = 'error' | 'code' | 'reason' | 'metricsValue' | 'metricsKey' | 'output' | 'interrupt' | 'taskError' | 'clearReason' | 'markReason';
type Step = { field: Field; text: string; date: number };
const step: fc.Arbitrary<Step> = fc.record({
  field: fc.constantFrom<Field>('error', 'code', 'reason', 'metricsValue', 'metricsKey', 'output', 'interrupt', 'taskError', 'clearReason', 'markReason'),
  text,
  date: fc.nat(3),
});
const DATES = ['2026-01-01', '2026-01-02', '2026-01-03', '2026-01-04'];

/** The name the refusal must give the field, as the caller wrote it. */
const FIELD_NAMES: Record<Field, RegExp> = {
  error: /^error holds/,
  code: /^code holds/,
  reason: /^reason holds/,
  metricsValue: /^metrics\.note holds/,
  metricsKey: /^metrics\.\(key /,
  output: /^outputs\[0\] holds/,
  interrupt: /^message holds/,
  taskError: /^error holds/,
  clearReason: /^reason holds/,
  markReason: /^reason holds/,
};

/** Sends the step's text; false when its run could not be started (the date is running), so the text was never sent. */
async function write(ledger: Ledger, s: Step): Promise<boolean> {
  const pipeline = s.field === 'taskError' ? 'tasks' : 'plain';
  const date = DATES[s.date] ?? '';
  const t = s.text;
  switch (s.field) {
    case 'clearReason':
      await ledger.clear({ pipeline, dates: [date], reason: t });
      return true;
    case 'markReason':
      await ledger.mark({ pipeline, dates: [date], skipped: true, reason: t });
      return true;
    case 'reason':
      await ledger.start({ pipeline, date, force: true, reason: t });
      return true;
    default:
  }
  let runId: string;
  try {
    runId = (await ledger.start({ pipeline, date, force: true })).runId;
  } catch (error) {
    if (isLedgerError(error) && error.code === 'ledger.alreadyRunning') return false;
    throw error;
  }
  switch (s.field) {
    case 'error':
      await ledger.fail({ runId, error: t });
      return true;
    case 'code':
      await ledger.fail({ runId, error: 'boom', code: t });
      return true;
    case 'metricsValue':
      await ledger.succeed({ runId, metrics: { note: t } });
      return true;
    case 'metricsKey':
      await ledger.succeed({ runId, metrics: { [`k${t}`]: 1 } });
      return true;
    case 'output':
      await ledger.succeed({ runId, outputs: [t] });
      return true;
    case 'interrupt':
      await ledger.interrupt({ runId, by: 'SIGTERM', message: t });
      return true;
    case 'taskError':
      await ledger.task({ runId, taskId: 'extract', state: 'failed', error: t });
      return true;
  }
}

/** Whether the step's text is refused: ill-formed anywhere; in an error code, any control character too (a column cannot hold NUL). */
const refused = (s: Step): boolean => !isWellFormed(s.text) || (s.field === 'code' && /[\u0000-\u001f\u007f-\u009f]/.test(s.text));

async function rawRows(store: EventStore): Promise<RawEvent[]> {
  const rows: RawEvent[] = [];
  for await (const batch of store.readRaw()) rows.push(...batch.map(({ position, payload, prevHash, hash }) => ({ position, payload, prevHash, hash })));
  return rows;
}

async function answers(ledger: Ledger): Promise<unknown> {
  const out: Record<string, unknown> = {};
  for (const pipeline of ['plain', 'tasks']) {
    out[pipeline] = { state: await ledger.state({ pipeline }), runs: await ledger.runs({ pipeline }), pending: await ledger.pending({ pipeline }), log: await ledger.log({ pipeline, limit: 5 }) };
  }
  return out;
}

async function expectClean(ledger: Ledger): Promise<void> {
  expect((await verifyProjections(ledger.store)).difference).toBeNull();
  const folding = new Ledger(foldOnly(ledger.store), () => START, 'prop', { checkpointAfter: 0 });
  expect(await answers(ledger)).toEqual(await answers(folding));
}

async function scenario(fresh: () => Promise<string>, steps: Step[]): Promise<void> {
  const clock = () => START;
  let ledger = await openLedger({ db: await fresh(), clock, actor: 'prop', checkpointAfter: 0 });
  try {
    await ledger.define({ pipeline: 'plain', schedule: '@daily', start: '2026-01-01' });
    await ledger.define({ pipeline: 'tasks', schedule: '@daily', start: '2026-01-01', tasks: [{ id: 'extract' }, { id: 'load', upstream: ['extract'] }] });
    for (const s of steps) {
      const before = (await ledger.store.head()).position;
      let refusal: unknown = null;
      let wrote = true;
      try {
        wrote = await write(ledger, s);
      } catch (error) {
        if (!isLedgerError(error)) throw error;
        refusal = error;
      }
      if (!wrote) continue;
      if (refused(s)) {
        // Refused naming the field, and the write of the text itself left nothing behind (its start may have).
        expect(refusal).toMatchObject({ code: 'input.illFormedText', exitCode: 2 });
        expect((refusal as Error).message).toMatch(FIELD_NAMES[s.field]);
        if (['reason', 'clearReason', 'markReason'].includes(s.field)) expect((await ledger.store.head()).position).toBe(before);
      } else if (refusal !== null) {
        // Well-formed text is never refused for its characters (an empty error or a stale date may be refused).
        expect((refusal as { code: string }).code).not.toBe('input.illFormedText');
      }
    }
    await expectClean(ledger);
    // A rebuild refolds the same rows; an import of the same stored rows gives the same tables.
    await ledger.rebuild();
    await expectClean(ledger);
    const rows = await rawRows(ledger.store);
    await ledger.close();
    const db = await fresh();
    const store = await openStore(db, { create: true });
    await store.importSealed(rows);
    await store.close();
    ledger = await openLedger({ db, clock, actor: 'prop', checkpointAfter: 0 });
    await expectClean(ledger);
  } finally {
    await ledger.close();
  }
}

type Adapter = { name: string; fresh: () => Promise<string>; cleanup: () => Promise<void>; runs: number };
const adapters: Adapter[] = [];
{
  const dir = tempDir('runledger-any-text-');
  let n = 0;
  adapters.push({ name: 'sqlite', fresh: async () => join(dir, `ledger-${++n}.db`), cleanup: async () => undefined, runs: 15 });
}
if (TEST_PG_URL !== undefined) {
  const schemas = pgSchemas(TEST_PG_URL);
  adapters.push({ name: 'postgres', fresh: () => schemas.fresh(), cleanup: () => schemas.dropAll(), runs: 5 });
} else {
  console.log(pgSkipMessage('any-text property test'));
}

afterAll(async () => {
  for (const adapter of adapters) await adapter.cleanup();
});

describe.each(adapters)('any text on $name', (adapter) => {
  test('ill-formed text is refused naming its field; any other text is recorded and verify --projections stays clean', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => scenario(adapter.fresh, steps)),
      propertyRuns(adapter.runs),
    );
  }, 300_000);
});

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { LedgerEvent } from '../../events/ledger-event.js';
import { runStream } from '../../events/recorded-event.js';
import { Ledger } from '../../src/ledger/ledger.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-event-store.js';

/**
 * Replay fixtures: each `<name>.jsonl` is an event log (one domain event per
 * line, as recorded), `<name>.expected.json` the projection it must give.
 * The log is appended to a fresh SQLite ledger as it stands, without the
 * deciders, so the fixtures also prove the folds ignore what they must.
 */
const DIR = join(import.meta.dirname, '../fixtures/projections');
const names = readdirSync(DIR).filter((f) => f.endsWith('.jsonl')).map((f) => f.replace(/\.jsonl$/, ''));

type Expected = {
  description: string;
  now: string;
  watermark: string | null;
  completeThrough: string | null;
  statuses: Record<string, string>;
  attempts: Record<string, number>;
  pending: Array<{ date: string; reason: string }>;
  inFlight: string[];
};

async function replay(name: string): Promise<{ ledger: Ledger; pipeline: string }> {
  const lines = readFileSync(join(DIR, `${name}.jsonl`), 'utf8').trim().split('\n');
  const store = openSqliteStore({ path: ':memory:', create: true });
  let pipeline = '';
  for (const [i, line] of lines.entries()) {
    const event = JSON.parse(line) as LedgerEvent & { recordedAt: string };
    const data = event.data as { pipeline: string; date?: string };
    pipeline = data.pipeline;
    const stream = data.date === undefined ? data.pipeline : runStream(data.pipeline, data.date);
    const result = await store.append([
      { stream, expectedVersion: 'any', events: [{ ...event, eventId: `F${String(i).padStart(25, '0')}`, stream, metadata: { actor: 'fixture', toolVersion: '0.0.0' } }] },
    ]);
    expect(result.ok).toBe(true);
  }
  return { ledger: new Ledger(store, () => Date.now(), 'fixture'), pipeline };
}

describe('replay fixtures', () => {
  test('there is a fixture for each rule S2, S3, S5, S6, S7 and S8', () => {
    for (const rule of ['s2', 's3', 's5', 's6', 's7', 's8']) expect(names.some((n) => n.startsWith(`${rule}-`))).toBe(true);
  });

  test.each(names)('%s', async (name) => {
    const expected = JSON.parse(readFileSync(join(DIR, `${name}.expected.json`), 'utf8')) as Expected;
    const { ledger: raw, pipeline } = await replay(name);
    const nowMs = Date.parse(expected.now);
    const ledger = new Ledger(raw.store, () => nowMs, 'fixture');
    const state = await ledger.state({ pipeline });
    const pending = await ledger.pending({ pipeline });
    expect({ watermark: state.watermark, completeThrough: state.completeThrough }).toEqual({ watermark: expected.watermark, completeThrough: expected.completeThrough });
    expect(Object.fromEntries(state.dates.map((d) => [d.date, d.status]))).toEqual(expected.statuses);
    for (const [date, attempts] of Object.entries(expected.attempts)) expect(state.dates.find((d) => d.date === date)?.attempts).toBe(attempts);
    expect(pending.pending.map((p) => ({ date: p.date, reason: p.reason }))).toEqual(expected.pending);
    expect(pending.inFlight.map((p) => p.date)).toEqual(expected.inFlight);
    await ledger.close();
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { GivenEvent } from '../../src/testing/record-events.js';
import { recordRows } from '../../src/testing/record-events.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';
import type { Ledger } from '../../src/ledger/ledger.js';

export const PROJECTION_FIXTURES = join(import.meta.dirname, '../fixtures/projections');

/** A memory ledger holding a projections replay fixture, with its clock at the fixture's `now`. */
export function fixtureLedger(name: string): { ledger: Ledger; expected: { now: string; watermark: string | null; completeThrough: string | null; statuses: Record<string, string> } } {
  const lines = readFileSync(join(PROJECTION_FIXTURES, `${name}.jsonl`), 'utf8').trim().split('\n');
  const events = lines.map((line) => JSON.parse(line) as GivenEvent);
  const expected = JSON.parse(readFileSync(join(PROJECTION_FIXTURES, `${name}.expected.json`), 'utf8'));
  const now = Date.parse(expected.now);
  return { ledger: openMemoryLedger({ rows: recordRows(events, { actor: 'fixture' }), clock: () => now }), expected };
}

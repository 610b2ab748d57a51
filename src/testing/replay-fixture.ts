import { readFileSync } from 'node:fs';
import { MemoryEventStore } from '../store/memory-event-store.js';
import { EXPORT_FORMAT, parseExport } from '../audit/export-format.js';
import { replayExport } from '../audit/replay-export.js';
import { checkEventSchema } from '../../events/decode-event.js';
import { LedgerError } from '../errors.js';
import { Ledger } from '../ledger/ledger.js';
import type { AsOf, StateView } from '../ledger/ledger-types.js';
import { sha256Hex } from '../store/seal-events.js';
import { recordEvents, recordRows, type GivenEvent } from './record-events.js';

export type ReplayFixtureOptions = {
  /** The expected document (default: the fixture path with `.jsonl` replaced by `.expected.json`). */
  expected?: string;
  /** Which pipeline, when the fixture holds several. */
  pipeline?: string;
  /** "now", RFC 3339 (default: an export's `exportedAt`, or the last event's `recordedAt`). */
  now?: string;
  asOf?: AsOf;
};

/**
 * Loads a replay fixture and returns the state it folds to next to the
 * expected one, for `expect(actual).toEqual(expected)`. A fixture is either a
 * file written by `runledger export` (checked like an import: hashes, chain,
 * trailer) or hand-written JSON Lines with one domain event per line
 * (`{"type":"RunStarted","schemaVersion":1,"recordedAt":…,"data":{…}}`), which
 * is sealed as a ledger would seal it. `actual` has the shape of
 * `runledger state --json`, passed through JSON so it compares with a file.
 *
 * @example
 * test('a clear keeps the watermark', async () => {
 *   const { actual, expected } = await replayFixture('tests/fixtures/replay/acceptance.jsonl');
 *   expect(actual).toEqual(expected);
 * });
 */
export async function replayFixture(path: string, options: ReplayFixtureOptions = {}): Promise<{ actual: StateView; expected: unknown }> {
  const text = readFileSync(path, 'utf8');
  const expectedPath = options.expected ?? path.replace(/\.jsonl$/, '.expected.json');
  const expected = JSON.parse(readFileSync(expectedPath, 'utf8')) as unknown;
  const nowMs = options.now === undefined ? undefined : Date.parse(options.now);
  const view = isExport(text)
    ? await replayExport(parseExport(text, path, sha256Hex, checkEventSchema), { ...pick(options), ...(nowMs === undefined ? {} : { nowMs }) })
    : await replayEventLines(text, path, options, nowMs);
  return { actual: JSON.parse(JSON.stringify(view)) as StateView, expected };
}

async function replayEventLines(text: string, path: string, options: ReplayFixtureOptions, nowMs: number | undefined): Promise<StateView> {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const events = lines.map((line, i) => {
    try {
      return JSON.parse(line) as GivenEvent;
    } catch {
      throw new LedgerError('input.badFixture', `${path} line ${i + 1} is not JSON`);
    }
  });
  const store = new MemoryEventStore();
  await store.importSealed(recordRows(events, options.now === undefined ? {} : { recordedAt: options.now }));
  const recorded = recordEvents(events, options.now === undefined ? {} : { recordedAt: options.now });
  const last = recorded.at(-1)?.recordedAt;
  const now = nowMs ?? (last === undefined ? 0 : Date.parse(last));
  const ledger = new Ledger(store, () => now, 'fixture');
  const pipeline = options.pipeline ?? recorded[0]?.data.pipeline;
  if (pipeline === undefined) throw new LedgerError('input.badFixture', `${path} holds no events`);
  return ledger.state({ pipeline, ...(options.asOf ? { asOf: options.asOf } : {}) });
}

function isExport(text: string): boolean {
  const first = text.slice(0, text.indexOf('\n') === -1 ? text.length : text.indexOf('\n'));
  try {
    return (JSON.parse(first) as { format?: unknown }).format === EXPORT_FORMAT;
  } catch {
    return false;
  }
}

function pick(options: ReplayFixtureOptions): { pipeline?: string; asOf?: AsOf } {
  return { ...(options.pipeline === undefined ? {} : { pipeline: options.pipeline }), ...(options.asOf ? { asOf: options.asOf } : {}) };
}

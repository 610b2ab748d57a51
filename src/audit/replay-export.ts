import { LedgerError } from '../errors.js';
import { Ledger } from '../ledger/ledger.js';
import type { AsOf, StateView } from '../ledger/ledger-types.js';
import type { ParsedExport } from './export-format.js';
import { MemoryEventStore } from './memory-event-store.js';

export type ReplayOptions = {
  /** Which pipeline's state; may be left out when the file holds one pipeline. */
  pipeline?: string;
  asOf?: AsOf;
  /** "now" of the replay in ms; default the export's `exportedAt`, so replaying an export gives the `state` it was taken with. */
  nowMs?: number;
};

/**
 * Rebuilds a pipeline's state from an export with no database: the
 * rows go into an in-memory store and the real `Ledger` folds them, so the
 * document is the one `state --json` prints, built by the same code.
 *
 * @example
 * const view = await replayExport(parseExport(text, 'ledger.jsonl', sha256Hex), { pipeline: 'etl_orders' });
 */
export async function replayExport(parsed: ParsedExport, options: ReplayOptions = {}): Promise<StateView> {
  const store = MemoryEventStore.fromRows(parsed.rows);
  const nowMs = options.nowMs ?? Date.parse(parsed.header.exportedAt);
  const ledger = new Ledger(store, () => nowMs, 'replay');
  const pipeline = options.pipeline ?? (await onlyPipeline(ledger));
  return ledger.state({ pipeline, ...(options.asOf ? { asOf: options.asOf } : {}) });
}

async function onlyPipeline(ledger: Ledger): Promise<string> {
  const names = (await ledger.pipelines()).map((p) => p.pipeline);
  const [only] = names;
  if (names.length === 1 && only !== undefined) return only;
  if (names.length === 0) throw new LedgerError('notFound.pipeline', 'the file defines no pipeline; there is no state to replay');
  throw new LedgerError('input.whichPipeline', `the file holds pipelines ${names.join(', ')}; pick one with --pipeline`);
}

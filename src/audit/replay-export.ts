import { checkEventSchema } from '../../events/decode-event.js';
import { compareNames } from '../../projections/views/compare-names.js';
import { LedgerError } from '../errors.js';
import { Ledger } from '../ledger/ledger.js';
import type { AsOf, StateView } from '../ledger/ledger-types.js';
import { sha256Hex } from '../store/seal-events.js';
import { ExportChecker, type ParsedExport } from './export-format.js';
import { ExportFileStore } from './export-file-store.js';
import { checkedExportBatches } from './read-export-file.js';
import { MemoryEventStore } from '../store/memory-event-store.js';

export type ReplayOptions = {
  /** Which pipeline's state; may be left out when the file holds one pipeline. */
  pipeline?: string;
  asOf?: AsOf;
  /** "now" of the replay in ms; default the export's `exportedAt`, so replaying an export gives the `state` it was taken with. */
  nowMs?: number;
  /** Filled with each pipeline's time zone as the file defines it (the CLI shows instants in it). */
  zones?: Map<string, string>;
};

/**
 * Rebuilds a pipeline's state from an export with no database: the
 * rows go into an in-memory store and the real `Ledger` folds them, so the
 * document is the one `state --json` prints, built by the same code.
 *
 * @example
 * const view = await replayExport(parseExport(text, 'ledger.jsonl', sha256Hex, checkEventSchema), { pipeline: 'etl_orders' });
 */
export async function replayExport(parsed: ParsedExport, options: ReplayOptions = {}): Promise<StateView> {
  const store = MemoryEventStore.fromRows(parsed.rows);
  const nowMs = options.nowMs ?? Date.parse(parsed.header.exportedAt);
  const ledger = new Ledger(store, () => nowMs, 'replay');
  const pipeline = options.pipeline ?? (await onlyPipeline(ledger));
  return ledger.state({ pipeline, ...(options.asOf ? { asOf: options.asOf } : {}) });
}

async function onlyPipeline(ledger: Ledger): Promise<string> {
  return onlyName((await ledger.pipelines()).map((p) => p.pipeline));
}

function onlyName(names: string[]): string {
  const [only] = names;
  if (names.length === 1 && only !== undefined) return only;
  if (names.length === 0) throw new LedgerError('notFound.pipeline', 'the file defines no pipeline; there is no state to replay');
  throw new LedgerError('input.whichPipeline', `the file holds pipelines ${names.join(', ')}; pick one with --pipeline`);
}

/**
 * `replayExport` over an export file of any size: one streamed pass checks
 * every line (nothing is replayed from a file that fails) and notes the
 * pipelines it defines; the fold then streams the file again, keeping only
 * the chosen pipeline's projection in memory.
 *
 * @example
 * const view = await replayExportFile('ledger.jsonl', { pipeline: 'etl_orders' });
 */
export async function replayExportFile(path: string, options: ReplayOptions = {}): Promise<StateView> {
  const checker = new ExportChecker(path, sha256Hex, checkEventSchema);
  const names = new Set<string>();
  checker.onEvent = (event) => {
    if (event.type === 'PipelineDefined') names.add(event.data.pipeline);
    if (event.type === 'PipelineDefined') options.zones?.set(event.data.pipeline, event.data.timezone);
    if (event.type === 'PipelineRedefined') options.zones?.set(event.data.pipeline, event.data.definition.timezone);
  };
  for await (const batch of checkedExportBatches(path, checker)) void batch;
  const { header, trailer } = checker.end();
  const store = new ExportFileStore(path, trailer.head);
  const nowMs = options.nowMs ?? Date.parse(header.exportedAt);
  const ledger = new Ledger(store, () => nowMs, 'replay');
  const pipeline = options.pipeline ?? onlyName([...names].sort(compareNames));
  return ledger.state({ pipeline, ...(options.asOf ? { asOf: options.asOf } : {}) });
}

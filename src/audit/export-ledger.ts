import { GENESIS_HASH } from '../../events/hash-chain.js';
import type { ChainHead, EventStore, RawEvent } from '../store/event-store.js';
import { eventLine, headerLine, trailerLine } from './export-format.js';

export type ExportOptions = {
  /** Only this pipeline's events: a filtered export, for replay (it cannot be imported). */
  pipeline?: string;
  /** When the export was taken; `replay` uses it as "now" by default. */
  exportedAt: string;
  toolVersion: string;
  /** Rows per read (default 5000). */
  batchSize?: number;
};

/**
 * Writes a ledger as the JSON Lines export of `export-format.ts`, one chunk
 * of lines per read batch so memory follows the batch. The export stops at
 * the head it saw first, so appends made while it runs are left out rather
 * than half in.
 *
 * @example
 * for await (const chunk of exportLedger(store, { exportedAt: new Date().toISOString(), toolVersion })) out.write(chunk);
 */
export async function* exportLedger(store: EventStore, options: ExportOptions): AsyncIterable<string> {
  const ledgerHead = await store.head();
  const pipeline = options.pipeline ?? null;
  yield `${headerLine({ exportedAt: options.exportedAt, toolVersion: options.toolVersion, filtered: pipeline !== null, pipeline, ledgerHead })}\n`;
  let count = 0;
  let head: ChainHead = { position: 0, hash: GENESIS_HASH };
  for await (const batch of store.readRaw({ toPosition: ledgerHead.position, batchSize: options.batchSize ?? 5000 })) {
    const rows = pipeline === null ? batch : batch.filter((row) => pipelineOf(row) === pipeline);
    const tail = rows.at(-1);
    if (!tail) continue;
    count += rows.length;
    head = { position: tail.position, hash: tail.hash };
    yield rows.map((row) => `${eventLine(row)}\n`).join('');
  }
  yield `${trailerLine(count, head)}\n`;
}

/** The pipeline a stored payload belongs to; a payload that does not parse belongs to none (verify reports it). */
function pipelineOf(row: RawEvent): string | null {
  try {
    const data = (JSON.parse(row.payload) as { data?: { pipeline?: unknown } }).data;
    return typeof data?.pipeline === 'string' ? data.pipeline : null;
  } catch {
    return null;
  }
}

import { LedgerError } from '../errors.js';
import type { ChainHead, EventStore } from '../store/event-store.js';
import type { ParsedExport } from './export-format.js';

/**
 * Imports a checked export (`parseExport`) into an empty ledger, all or
 * nothing: the same positions, the same stored bytes and so the same head
 * hash as the ledger it came from. A filtered export is refused: its chain
 * has gaps, and re-sealing it would give new hashes that prove nothing about
 * the original; replay it instead.
 *
 * @example
 * const head = await importLedger(store, parseExport(text, 'ledger.jsonl', sha256Hex));
 */
export async function importLedger(store: EventStore, parsed: ParsedExport): Promise<ChainHead> {
  assertImportable(parsed);
  const before = await store.head();
  if (before.position !== 0) {
    throw new LedgerError('ledger.notEmpty', `the target ledger already holds ${before.position} events; import only into a new, empty ledger (pass another --db)`);
  }
  const head = await store.importSealed(parsed.rows);
  if (head.position !== parsed.trailer.head.position || head.hash !== parsed.trailer.head.hash) {
    throw new LedgerError('integrity.importMismatch', `after the import the ledger's head is ${head.position}:${head.hash}, not the export's ${parsed.trailer.head.position}:${parsed.trailer.head.hash}; run \`runledger verify\``);
  }
  return head;
}

/** Refuses what no ledger can take, before a target ledger is even opened (so no empty file is left behind). */
export function assertImportable(parsed: ParsedExport): void {
  if (parsed.header.filtered) {
    throw new LedgerError(
      'input.filteredExport',
      `this export holds only pipeline ${parsed.header.pipeline ?? '?'}, so its hash chain has gaps and cannot be imported; import a full export (without --pipeline), or use \`runledger replay\` on it`,
    );
  }
}

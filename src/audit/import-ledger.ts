import { checkEventSchema } from '../../events/decode-event.js';
import { LedgerError } from '../errors.js';
import type { ChainHead, EventStore } from '../store/event-store.js';
import { sha256Hex } from '../store/seal-events.js';
import { compiledWorker } from './compiled-worker.js';
import { exportBatchesInWorker } from './export-batches-in-worker.js';
import { ExportChecker, type ExportHeader } from './export-format.js';
import { checkedExportBatches, readExportHeader } from './read-export-file.js';

/**
 * Imports an export file into an empty ledger, all or nothing: the same
 * positions, the same stored bytes and so the same head hash as the ledger it
 * came from. The file is streamed line by line: each line is checked as it
 * is read and written inside the one import transaction, and the first bad
 * line (or a missing trailer) rolls everything back, so memory follows a
 * batch of lines, not the file, and the result is still all or nothing.
 *
 * Into a store that takes checked columns (SQLite), the lines are read and
 * checked in a worker thread while the rows before them go in; `worker`
 * names its compiled module (by default the one beside this file, absent
 * when running from the TypeScript sources) or, null, keeps it all in this
 * thread. Both paths check the same things with the same `ExportChecker`.
 *
 * @example
 * const head = await importExportFile(store, 'ledger.jsonl');
 */
export async function importExportFile(store: EventStore, path: string, options: { worker?: URL | null } = {}): Promise<ChainHead> {
  assertImportable(await readExportHeader(path, sha256Hex));
  await assertEmpty(store);
  const worker = options.worker === undefined ? compiledWorker('import-worker.js') : options.worker;
  if (worker && store.capabilities.importsCheckedColumns) {
    const file = exportBatchesInWorker(path, worker);
    return sameHead(await store.importSealed(file.batches), file.head());
  }
  const checker = new ExportChecker(path, sha256Hex, checkEventSchema);
  // Each line is parsed, hashed and validated once, here; the store then checks only the links.
  checker.handOnChecked = true;
  const head = await store.importSealed(checkedExportBatches(path, checker));
  return sameHead(head, checker.end().trailer.head);
}

/** Refuses what no ledger can take, before a target ledger is even opened (so no empty file is left behind). */
export function assertImportable(header: ExportHeader): void {
  if (header.filtered) {
    throw new LedgerError(
      'input.filteredExport',
      `this export holds only pipeline ${header.pipeline ?? '?'}, so its hash chain has gaps and cannot be imported; import a full export (without --pipeline), or use \`runledger replay\` on it`,
    );
  }
}

async function assertEmpty(store: EventStore): Promise<void> {
  const before = await store.head();
  if (before.position !== 0) {
    throw new LedgerError('ledger.notEmpty', `the target ledger already holds ${before.position} events; import only into a new, empty ledger (pass another --db)`);
  }
}

function sameHead(head: ChainHead, expected: ChainHead): ChainHead {
  if (head.position !== expected.position || head.hash !== expected.hash) {
    throw new LedgerError('integrity.importMismatch', `after the import the ledger's head is ${head.position}:${head.hash}, not the export's ${expected.position}:${expected.hash}; run \`runledger verify\``);
  }
  return head;
}

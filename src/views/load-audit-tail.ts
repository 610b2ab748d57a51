import { AUDIT_EVENT_TYPES, auditEntriesOf, type AuditEntry } from '../../projections/views/pipeline-history.js';
import type { Ledger } from '../ledger/ledger.js';

/**
 * A pipeline's audit entries up to a position, counted whole while only the newest `keep` are held
 * (newest first): the report's audit section without folding the pipeline's history. Only the events of the
 * types that make entries are read (a daily pipeline's 1,000 events are 472 of them).
 *
 * @example
 * const { entries, total } = await loadAuditTail(ledger, 'etl_orders', head.position, 500);
 */
export async function loadAuditTail(ledger: Ledger, pipeline: string, toPosition: number, keep: number): Promise<{ entries: AuditEntry[]; total: number }> {
  let entries: AuditEntry[] = [];
  let total = 0;
  for await (const batch of ledger.store.read({ pipeline, toPosition, types: AUDIT_EVENT_TYPES })) {
    for (const event of batch) {
      for (const entry of auditEntriesOf(event)) {
        total += 1;
        entries.push(entry);
      }
    }
    if (entries.length > 2 * keep) entries = entries.slice(-keep);
  }
  return { entries: entries.slice(-keep).reverse(), total };
}

import type { LedgerMeta } from '../store/event-store.js';

/**
 * What is wrong with a ledger's `runledger_meta`, or null. Its rows are not events, so the chain does not
 * cover them; instead their whole content follows from the ledger's schema (the adapter says what it must
 * be), and any row added, removed or changed is reported: a `schemaVersion` set back to 1 would let an old
 * runledger that cannot store signatures append to a signed ledger.
 *
 * @example
 * metaProblem({ stored: [{ key: 'format', value: 'runledger' }], expected: [...] }) // 'runledger_meta lacks its schemaVersion row…'
 */
export function metaProblem(meta: LedgerMeta): string | null {
  const stored = new Map(meta.stored.map((row) => [row.key, row.value]));
  for (const { key, value } of meta.expected) {
    const actual = stored.get(key);
    if (actual === undefined) return `runledger_meta lacks its ${key} row (it should say ${JSON.stringify(value)}): the table was edited`;
    if (actual !== value) return `runledger_meta says ${key} = ${JSON.stringify(actual)} where this ledger's tables say ${JSON.stringify(value)}: the table was edited`;
    stored.delete(key);
  }
  const extra = [...stored.keys()][0];
  return extra === undefined ? null : `runledger_meta holds a row ${JSON.stringify(extra)} that runledger never writes: the table was edited`;
}

/**
 * An expected "no" from a decision rule, returned as a value, not thrown (docs/architecture.md).
 * `code` is stable (`ledger.alreadyRunning`, …); `message` is one line that
 * says what happened and what to do instead.
 */
export type Refusal = { code: RefusalCode; message: string };

/** Every code a decision rule refuses with: a closed list, so callers can switch on it exhaustively. */
export const REFUSAL_CODES = [
  'ledger.alreadyRunning',
  'ledger.alreadySucceeded',
  'ledger.futureDate',
  'ledger.hasDownstream',
  'ledger.notASlot',
  'ledger.notDue',
  'ledger.retired',
  'ledger.runFinished',
  'ledger.runIdTaken',
  'ledger.staleRun',
  'ledger.tasksUnfinished',
  'ledger.unknownRun',
  'ledger.waitingForPrevious',
] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];

export type Decision<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

export function refuse<T>(code: Refusal['code'], message: string): Decision<T> {
  return { ok: false, refusal: { code, message } };
}

export function accept<T>(value: T): Decision<T> {
  return { ok: true, value };
}

/**
 * An expected "no" from a decision rule, returned as a value (STYLE.md item 6).
 * `code` is stable (`ledger.alreadyRunning`, …); `message` is one line that
 * says what happened and what to do instead.
 */
export type Refusal = { code: `ledger.${string}`; message: string };

export type Decision<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

export function refuse<T>(code: Refusal['code'], message: string): Decision<T> {
  return { ok: false, refusal: { code, message } };
}

export function accept<T>(value: T): Decision<T> {
  return { ok: true, value };
}

/**
 * Exit codes of DESIGN §5. Every LedgerError carries one.
 */
export const ExitCode = {
  ok: 0,
  unexpected: 1,
  badInput: 2,
  refused: 3,
  notFound: 4,
  integrity: 5,
  runFailed: 6,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Stable error codes; the prefix tells the exit code. */
export type LedgerErrorCode =
  | `input.${string}`
  | `ledger.${string}`
  | `notFound.${string}`
  | `integrity.${string}`
  | `store.${string}`
  /** Writing the command's output failed (a full disk, a closed pipe): exit 1. */
  | `output.${string}`;

function exitCodeFor(code: LedgerErrorCode): ExitCode {
  if (code.startsWith('input.')) return ExitCode.badInput;
  if (code.startsWith('ledger.')) return ExitCode.refused;
  if (code.startsWith('notFound.')) return ExitCode.notFound;
  if (code.startsWith('integrity.')) return ExitCode.integrity;
  return ExitCode.unexpected;
}

/**
 * The one error type of runledger. `message` is a single line that says what
 * happened and what to do; `code` is stable (tests and scripts match on it).
 *
 * @example
 * throw new LedgerError('input.invalidDate', "'2026-02-30' is not a valid date; use YYYY-MM-DD or an RFC 3339 instant");
 */
export class LedgerError extends Error {
  readonly code: LedgerErrorCode;
  readonly exitCode: ExitCode;

  constructor(code: LedgerErrorCode, message: string, options?: { exitCode?: ExitCode; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LedgerError';
    this.code = code;
    this.exitCode = options?.exitCode ?? exitCodeFor(code);
  }
}

export function isLedgerError(error: unknown): error is LedgerError {
  return error instanceof LedgerError;
}

import { REFUSAL_CODES } from '../projections/refusal.js';

/**
 * The CLI's exit codes. Every LedgerError carries one.
 */
export const ExitCode = {
  ok: 0,
  unexpected: 1,
  badInput: 2,
  refused: 3,
  notFound: 4,
  integrity: 5,
  runFailed: 6,
  /** A check that does not hold (`check`): the answer is no, not an error. */
  checkFailed: 7,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * Every stable error code, a closed list: switch on `error.code` with an exhaustiveness check, and the compiler
 * tells you when a version adds one. The prefix tells the exit code.
 *
 * @example
 * function advice(code: LedgerErrorCode): string {
 *   switch (code) {
 *     case 'ledger.alreadySucceeded': return 'reprocess with force: true';
 *     // …every other code…
 *     default: return code satisfies never;
 *   }
 * }
 */
export const LEDGER_ERROR_CODES = [
  // bad input (exit 2)
  'input.asOfBeyondHead',
  'input.asOfInFuture',
  'input.badDatabaseUrl',
  'input.badEvent',
  'input.badExport',
  'input.badFixture',
  'input.badPayload',
  'input.badSigningKey',
  'input.bodyTooDeep',
  'input.brokenChain',
  'input.cannotOpen',
  'input.commandNotFound',
  'input.conflictingOptions',
  'input.databaseLogin',
  'input.databasePermission',
  'input.databaseSsl',
  'input.demoDir',
  'input.demoDirNotEmpty',
  'input.emptyDb',
  'input.emptyRunId',
  'input.emptyError',
  'input.emptyPath',
  'input.errorTooLong',
  'input.eventIdReused',
  'input.filteredExport',
  'input.eventTimeOutOfRange',
  'input.illFormedText',
  'input.incompleteInterval',
  'input.intervalNeedsManual',
  'input.invalidBody',
  'input.invalidConsumerName',
  'input.invalidDate',
  'input.invalidDuration',
  'input.invalidEffective',
  'input.invalidEnd',
  'input.invalidExpectation',
  'input.invalidHead',
  'input.invalidHost',
  'input.invalidAllowedHost',
  'input.invalidInstant',
  'input.invalidInterval',
  'input.invalidJson',
  'input.invalidMaxActiveRuns',
  'input.invalidMetrics',
  'input.invalidNumber',
  'input.invalidOpenLineageEvent',
  'input.invalidOpenLineageJob',
  'input.invalidOutputs',
  'input.invalidPipelineName',
  'input.invalidPosition',
  'input.invalidQuery',
  'input.invalidRange',
  'input.invalidReprocess',
  'input.invalidRunId',
  'input.invalidRunLog',
  'input.invalidRetries',
  'input.invalidPool',
  'input.invalidPriority',
  'input.invalidNotify',
  'input.missingReason',
  'input.invalidMark',
  'input.invalidSchedule',
  'input.invalidSizeCap',
  'input.invalidTaskState',
  'input.invalidTasks',
  'input.invalidTimetable',
  'input.invalidTryNumber',
  'input.limitTooLarge',
  'input.memoryDb',
  'input.missingCommand',
  'input.missingOption',
  'input.newerLedger',
  'input.noCronTimetable',
  'input.noEvents',
  'input.noSchema',
  'input.notALedger',
  'input.nothingToCheck',
  'input.nothingToClear',
  'input.outOfOrder',
  'input.pgMissing',
  'input.portInUse',
  'input.rangeTooLarge',
  'input.readOnlyLedger',
  'input.reportNeedsHtml',
  'input.tokenRequired',
  'input.tooManyItems',
  'input.unexpectedArgument',
  'input.unknownEventType',
  'input.dependencyCycle',
  'input.invalidCommand',
  'input.invalidUpstream',
  'input.unknownUpstream',
  'input.unknownOption',
  'input.unknownPlaceholder',
  'input.unknownZone',
  'input.fileTooLarge',
  'input.unreadableFile',
  'input.unreadableMetrics',
  'input.unreadableTasks',
  'input.unwritableFile',
  'input.unwritablePath',
  'input.weakToken',
  'input.whichPipeline',
  // refused by a rule (exit 3); the decision rules' own codes come from REFUSAL_CODES
  ...REFUSAL_CODES,
  'ledger.changed',
  'ledger.interrupted',
  'ledger.jobBound',
  'ledger.notEmpty',
  'ledger.pipelineExists',
  'ledger.timetableChange',
  'ledger.runElsewhere',
  'ledger.timedOut',
  // not found (exit 4)
  'notFound.database',
  'notFound.examples',
  'notFound.file',
  'notFound.ledger',
  'notFound.openlineageJob',
  'notFound.pipeline',
  'notFound.readModels',
  'notFound.run',
  'notFound.runLog',
  'notFound.task',
  // integrity failure (exit 5)
  'integrity.badEvent',
  'integrity.badPayload',
  'integrity.chainBroken',
  'integrity.checkpointDiffers',
  'integrity.projectionDiffers',
  'integrity.importMismatch',
  'integrity.runLogChanged',
  'integrity.metaAltered',
  'integrity.signatureInvalid',
  // a subscription's handler kept failing (exit 1)
  'consumer.handlerFailed',
  // writing the command's output failed: a full disk, a broken device (exit 1)
  'output.writeFailed',
  // the database failed (exit 1)
  'store.busy',
  'store.connectionLost',
  'store.contention',
  'store.diskFull',
  'store.timeout',
] as const;
export type LedgerErrorCode = (typeof LEDGER_ERROR_CODES)[number];

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

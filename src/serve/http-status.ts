import { ExitCode } from '../errors.js';

/**
 * The HTTP status for each CLI exit code, so the HTTP API and the CLI give one
 * answer: bad input 400, refused by a rule 409, not found 404, an integrity
 * failure 500 (with the integrity message), a check that does not hold 422.
 *
 * @example
 * statusForExitCode(ExitCode.refused) // 409
 */
export function statusForExitCode(exitCode: number): number {
  switch (exitCode) {
    case ExitCode.badInput:
      return 400;
    case ExitCode.refused:
      return 409;
    case ExitCode.notFound:
      return 404;
    case ExitCode.checkFailed:
      return 422;
    default:
      return 500;
  }
}

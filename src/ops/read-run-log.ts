import { nodeCrypto } from '../node-crypto.js';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { RunLog } from '../../events/common.js';
import { LedgerError } from '../errors.js';
import type { Ledger } from '../ledger/ledger.js';
import type { AsOf } from '../ledger/ledger-types.js';

const OUTCOMES = new Set(['RunSucceeded', 'RunFailed', 'RunInterrupted']);

/**
 * The log file a run's outcome recorded (path and sha256). Refuses, with `notFound.run`, a run that is not
 * one of the pipeline's, and with `notFound.runLog` a run that has no outcome yet or recorded no log file.
 *
 * @example
 * const log = await recordedRunLog(ledger, { pipeline: 'etl_orders', runId });
 */
export async function recordedRunLog(ledger: Ledger, input: { pipeline: string; runId: string; asOf?: AsOf }): Promise<RunLog> {
  const { events } = await ledger.log({ pipeline: input.pipeline, runId: input.runId, ...(input.asOf ? { asOf: input.asOf } : {}) });
  if (events.length === 0) throw new LedgerError('notFound.run', `no run ${input.runId} of ${input.pipeline}; list its runs with \`runledger runs ${input.pipeline}\``);
  const outcome = events.findLast((event) => OUTCOMES.has(event.type));
  const what = `run ${input.runId} of ${input.pipeline}`;
  if (!outcome) throw new LedgerError('notFound.runLog', `${what} has no recorded outcome (it is running, or was abandoned or superseded), and a log file is recorded with the outcome; see \`runledger log ${input.pipeline} --run ${input.runId}\``);
  const log = 'log' in outcome.data ? outcome.data.log : undefined;
  if (!log) throw new LedgerError('notFound.runLog', `${what} recorded no log file: it ran without one (--no-logs, a library call, or a runledger without log files)`);
  return log;
}

/**
 * The log file's bytes, checked first against the sha256 its run recorded: a file that is gone is
 * `notFound.runLog`, one whose content changed since (edited, truncated, rotated) `integrity.runLogChanged`.
 * Nothing is returned until the whole file matched, so a refused file prints nothing.
 *
 * @example
 * const stream = await openVerifiedRunLog(log, runId);
 */
export async function openVerifiedRunLog(log: RunLog, runId: string): Promise<Readable> {
  const hash = nodeCrypto().createHash('sha256');
  try {
    for await (const chunk of createReadStream(log.path)) hash.update(chunk as Buffer);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new LedgerError('notFound.runLog', `the log file of run ${runId}, ${log.path}, is missing: moved, rotated or deleted since the run (runledger never deletes one)`);
    throw new LedgerError('input.unreadableFile', `cannot read the log file of run ${runId}, ${log.path}: ${code ?? (error as Error).message}`);
  }
  const sha256 = hash.digest('hex');
  if (sha256 !== log.sha256) {
    throw new LedgerError('integrity.runLogChanged', `the log file of run ${runId}, ${log.path}, no longer matches the sha256 its outcome recorded (sha256 ${sha256}, recorded ${log.sha256}): it was changed, truncated or rotated since the run, so it is not printed`);
  }
  return createReadStream(log.path, { encoding: 'utf8' });
}

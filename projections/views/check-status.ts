import { PENDING_REASONS, reasonWords } from '../pending.js';
import { formatLag } from './format-lag.js';
import type { PipelineStatus } from './pipeline-status.js';
import { waitsForText } from './cleared-because.js';

/** The rules of `check`. Each one left out is not checked (the lag falls back to the pipeline's own freshness). */
export type CheckRules = {
  /** Largest lag allowed, in seconds; overrides every pipeline's freshness. */
  maxLagSeconds?: number;
  /** Most pending dates allowed (missing, failed, up for retry, interrupted, cleared, stalled and waiting for previous together). */
  maxPending?: number;
  /** No date may be currently failed. */
  noFailed?: boolean;
  /** No run may be stalled (running with its lease expired). */
  noStalled?: boolean;
  /** Most due dates allowed that wait for upstream dates not done (`--max-blocked`). */
  maxBlocked?: number;
  /** Leave out the rule that holds by default: no date may wait for a retry nobody started (`--allow-overdue-retries`). */
  allowOverdueRetries?: boolean;
  /** Hold a paused pipeline's lag, pending and blocked dates to the rules too (`--include-paused`); by default a pause leaves them alone. */
  includePaused?: boolean;
};

export type CheckRule = 'lag' | 'pending' | 'failed' | 'stalled' | 'blocked' | 'overdue';

/** One rule a pipeline breaks; `message` is the line `check` prints. */
export type Violation = { pipeline: string; rule: CheckRule; actual: number; limit: number; message: string };

/**
 * The rules a pipeline's status breaks, one violation per rule. The lag limit
 * is `maxLagSeconds` when given, else the freshness the pipeline was defined
 * with, else none; a pipeline with no slot due yet has no lag to break it.
 *
 * @example
 * checkStatus(status, { maxLagSeconds: 86_400 }) // [{ pipeline: 'etl_orders', rule: 'lag', message: 'etl_orders: lag 2d 1h is over 1d (complete through 2026-11-04)', … }]
 */
export function checkStatus(status: PipelineStatus, rules: CheckRules): Violation[] {
  const violations: Violation[] = [];
  const p = status.pipeline;
  // A paused pipeline falls behind on purpose: its lag, pending and blocked dates are no news unless asked (a failure or a stalled run still is).
  const held = status.paused !== undefined && rules.includePaused !== true;
  const lagLimit = held ? undefined : (rules.maxLagSeconds ?? status.freshnessSeconds ?? undefined);
  if (lagLimit !== undefined && status.lagSeconds !== null && status.lagSeconds > lagLimit) {
    const through = status.completeThrough === null ? 'nothing complete yet' : `complete through ${status.completeThrough}`;
    const limit = `${rules.maxLagSeconds === undefined ? 'its freshness ' : ''}${formatLag(lagLimit * 1000)}`;
    violations.push({
      pipeline: p,
      rule: 'lag',
      actual: status.lagSeconds,
      limit: lagLimit,
      message: `${p}: lag ${status.lag} is over ${limit} (${through}, ${status.behind} date${status.behind === 1 ? '' : 's'} behind)`,
    });
  }
  if (!held && rules.maxPending !== undefined && status.pending.total > rules.maxPending) {
    const parts = PENDING_REASONS.filter((r) => status.pending[r] > 0).map((r) => `${status.pending[r]} ${reasonWords(r)}`);
    violations.push({
      pipeline: p,
      rule: 'pending',
      actual: status.pending.total,
      limit: rules.maxPending,
      message: `${p}: ${status.pending.total} date${status.pending.total === 1 ? "" : "s"} pending (${parts.join(', ')}), more than ${rules.maxPending}`,
    });
  }
  if (rules.noFailed && status.pending.failed > 0) {
    const last = status.lastFailure ? `; last failure ${status.lastFailure.date}: ${status.lastFailure.error}` : '';
    violations.push({
      pipeline: p,
      rule: 'failed',
      actual: status.pending.failed,
      limit: 0,
      message: `${p}: ${status.pending.failed} date${status.pending.failed === 1 ? '' : 's'} failed${last}`,
    });
  }
  if (rules.noStalled && status.stalled.length > 0) {
    violations.push({
      pipeline: p,
      rule: 'stalled',
      actual: status.stalled.length,
      limit: 0,
      message: `${p}: ${status.stalled.length} run${status.stalled.length === 1 ? '' : 's'} stalled (${status.stalled.map((s) => `${s.date}, lease expired ${s.leaseExpiresAt}`).join('; ')})`,
    });
  }
  if (!held && rules.maxBlocked !== undefined && status.blocked > rules.maxBlocked) {
    const first = status.firstBlocked ? `; first ${status.firstBlocked.date} ${waitsForText(status.firstBlocked.blockedBy)}` : '';
    violations.push({
      pipeline: p,
      rule: 'blocked',
      actual: status.blocked,
      limit: rules.maxBlocked,
      message: `${p}: ${status.blocked} date${status.blocked === 1 ? '' : 's'} blocked by upstream, more than ${rules.maxBlocked}${first}`,
    });
  }
  const overdue = status.overdueRetries ?? [];
  if (!rules.allowOverdueRetries && overdue.length > 0) {
    violations.push({
      pipeline: p,
      rule: 'overdue',
      actual: overdue.length,
      limit: 0,
      message: `${p}: ${overdue.length} retr${overdue.length === 1 ? 'y' : 'ies'} overdue, nobody started ${overdue.length === 1 ? 'it' : 'them'} (${overdue.map((o) => `${o.date} attempt ${o.attempt} of ${o.of}, due ${o.nextAt}`).join('; ')}); run \`runledger catchup ${p}\` or a scheduler (--allow-overdue-retries leaves this rule out)`,
    });
  }
  return violations;
}

/** True when `check` has at least one rule for this pipeline (an option, or its own freshness). */
export function hasRules(status: PipelineStatus, rules: CheckRules): boolean {
  return rules.maxLagSeconds !== undefined || rules.maxPending !== undefined || rules.maxBlocked !== undefined || rules.noFailed === true || rules.noStalled === true || status.freshnessSeconds !== null;
}

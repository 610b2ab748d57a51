import { checkStatus, hasRules, type CheckRules, type Violation } from '../../projections/views/check-status.js';
import { LedgerError } from '../errors.js';
import type { Ledger } from '../ledger/ledger.js';
import { readStatus } from './read-status.js';

/** `check --json` and `GET /api/check`: which pipelines had a rule, and the rules they break. */
export type CheckReport = { ok: boolean; now: string; checked: string[]; violations: Violation[] };

/**
 * Checks every pipeline (or the named ones) against the rules, each without
 * `maxLagSeconds` against its own freshness. No rule for any pipeline is bad
 * input (`input.nothingToCheck`), not a pass: a monitor with a typo in its
 * flags must not stay green.
 *
 * @example
 * const report = await runCheck(ledger, { maxLagSeconds: 86_400 }); // { ok: false, violations: [{ rule: 'lag', … }] }
 */
export async function runCheck(ledger: Ledger, rules: CheckRules, options: { pipelines?: readonly string[]; nowMs?: number } = {}): Promise<CheckReport> {
  const view = await readStatus(ledger, options);
  const checked = view.pipelines.filter((s) => hasRules(s, rules));
  if (checked.length === 0) {
    throw new LedgerError(
      'input.nothingToCheck',
      view.pipelines.length === 0
        ? 'there are no pipelines to check; define one with `runledger define`'
        : 'no rule to check: give --max-lag, --max-pending, --max-blocked, --no-failed or --no-stalled, or define a freshness with `runledger define <pipeline> --freshness 1d`',
    );
  }
  const violations = checked.flatMap((s) => checkStatus(s, rules));
  return { ok: violations.length === 0, now: view.now, checked: checked.map((s) => s.pipeline), violations };
}

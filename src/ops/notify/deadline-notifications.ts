import { isDone } from '../../../projections/date-state.js';
import { overdueRetry } from '../../../projections/overdue-retry.js';
import type { Ledger } from '../../ledger/ledger.js';
import { idempotencyKey, type Notification, type NotifyKind } from './notification.js';
import { inZone } from '../../format/zoned-instant.js';

/** The most slots one check looks at per pipeline: a notifier that was down for years catches up in steps. */
const MAX_SLOTS_PER_CHECK = 10_000;

/**
 * What the clock, not an event, makes news of, for deadlines in `(fromMs, toMs]`:
 * `late`, a slot not done (success or skipped) by its run-after plus the pipeline's SLA, when that instant
 * falls in the window; `stalled`, a running date whose lease ran out in the window; `overdue`, a date still
 * waiting for a retry whose time plus the lease passed in the window. Each deadline belongs to
 * exactly one window, so a notifier that moves its window on after each check reports each one once (and a
 * check repeated after a crash reports the same ones, with the same keys).
 *
 * @example
 * await deadlineNotifications(ledger, ['etl_orders'], { fromMs, toMs: ledger.now() }, ['late'])
 */
export async function deadlineNotifications(ledger: Ledger, pipelines: readonly string[], window: { fromMs: number; toMs: number }, kinds: readonly NotifyKind[]): Promise<Notification[]> {
  const found: Notification[] = [];
  if (window.toMs <= window.fromMs) return found;
  for (const name of pipelines) {
    const { definition, timetable, state } = await ledger.pipeline(name);
    if (kinds.includes('stalled')) {
      for (const date of state.dates.values()) {
        const ends = Date.parse(date.leaseExpiresAt);
        if (date.status !== 'running' || ends <= window.fromMs || ends > window.toMs) continue;
        found.push({
          kind: 'stalled',
          idempotencyKey: idempotencyKey('stalled', name, date.date, date.runId, date.leaseExpiresAt),
          pipeline: name,
          date: date.date,
          runId: date.runId,
          at: date.leaseExpiresAt,
          position: null,
          summary: `${name} ${date.date} stalled: run ${date.runId} sent no heartbeat, its lease ran out at ${date.leaseExpiresAt}`,
          error: `lease expired at ${date.leaseExpiresAt}`,
          code: 'stalled',
          attempt: date.attempt,
          runAfter: date.runAfter,
          slaMs: null,
          actor: null,
        });
      }
    }
    if (kinds.includes('overdue')) {
      // The deadline is the retry's time plus the lease: one lease after a retry should have started, nobody has.
      for (const date of state.dates.values()) {
        const overdue = overdueRetry(date, definition.leaseMs, window.toMs);
        if (!overdue || Date.parse(overdue.overdueSince) <= window.fromMs) continue;
        found.push({
          kind: 'overdue',
          idempotencyKey: idempotencyKey('overdue', name, date.date, date.runId, overdue.nextAt),
          pipeline: name,
          date: date.date,
          runId: date.runId,
          at: overdue.overdueSince,
          position: null,
          summary: `${name} ${date.date}: retry overdue, attempt ${overdue.attempt} of ${overdue.of} was due at ${inZone(overdue.nextAt, definition.timezone)} and nobody started it (its runner stopped?); run runledger catchup ${name}`,
          error: date.error?.message ?? null,
          code: 'overdue',
          attempt: date.attempt,
          runAfter: date.runAfter,
          slaMs: null,
          actor: null,
        });
      }
    }
    const sla = definition.slaMs;
    if (kinds.includes('late') && sla !== undefined) {
      // The slots whose deadline (run-after + SLA) is in the window: after the last due by `from - SLA`, up to the last due by `to - SLA`.
      const before = timetable.lastDue(window.fromMs - sla);
      const last = timetable.lastDue(window.toMs - sla);
      let count = 0;
      for (let slot = before ? timetable.next(before) : timetable.first(); slot && last && Date.parse(slot.logicalDate) <= Date.parse(last.logicalDate); slot = timetable.next(slot)) {
        if (++count > MAX_SLOTS_PER_CHECK) break;
        const date = state.dates.get(slot.date);
        if (isDone(date?.status)) continue;
        const deadline = new Date(Date.parse(slot.runAfter) + sla).toISOString();
        found.push({
          kind: 'late',
          idempotencyKey: idempotencyKey('late', name, slot.date, deadline),
          pipeline: name,
          date: slot.date,
          runId: date?.runId ?? null,
          at: deadline,
          position: null,
          summary: `${name} ${slot.date} is late: not done by ${inZone(deadline, definition.timezone)} (run-after ${slot.runAfter} plus its SLA), now ${date?.status ?? 'missing'}`,
          error: null,
          code: date?.status ?? 'missing',
          attempt: date?.attempt ?? null,
          runAfter: slot.runAfter,
          slaMs: sla,
          actor: null,
        });
      }
    }
  }
  return found.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

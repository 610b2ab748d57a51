import type { RunType } from '../events/types/common.js';
import type { RunAbandoned } from '../events/types/run-abandoned.js';
import type { RunFailed } from '../events/types/run-failed.js';
import type { RunStarted } from '../events/types/run-started.js';
import { leaseExpired } from './date-state.js';
import type { PipelineState } from './pipeline-state.js';
import { accept, refuse, type Decision } from './refusal.js';
import type { Slot } from './slot.js';

export type StartCommand = {
  pipeline: string;
  /** The slot to run; for an off-schedule manual run, the explicit date and its interval. */
  slot: Slot;
  /** False when the logical date is not a slot of the timetable. */
  onSchedule: boolean;
  runType: RunType;
  force: boolean;
  /** The new run's id, made by the caller (ids are randomness, kept out of the core). */
  runId: string;
  leaseMs: number;
  /**
   * Start even though the key is running, when the run it runs is `runId`:
   * that run is recorded as failed with `message` (code `superseded`) first.
   * For producers that report a newer attempt whose older one never sent its
   * end (OpenLineage ingest). Naming the run keeps a decision made on an older
   * read from superseding a run that started since.
   */
  supersede?: { runId: string; message: string };
  /** Recorded on the run when it was started from an OpenLineage event. */
  openlineage?: RunStarted['data']['openlineage'];
  /** The pool the run takes a place in, and its size as the runner keeps it. */
  pool?: RunStarted['data']['pool'];
  /**
   * The previous slot that keeps this one from starting (the pipeline depends on past and it is not done),
   * as `previousSlotBlocks` gives it; absent when nothing blocks it.
   */
  waitFor?: { date: string; status: string };
  /**
   * The pipeline's first slot and its end (inclusive, or null), so a date outside them is refused as such rather
   * than as "not a slot".
   */
  bounds?: { firstDate: string; firstLogicalDate: string; end: string | null };
  /** Slot keys near a date that is not a slot (that day's slots, or the ones around it), to suggest instead. */
  slotsNear?: string[];
  /** The producer's own start time (OpenLineage `eventTime`), recorded as the run's `at`; a run it supersedes ends then too. */
  at?: string;
};

export type StartDecision = { events: Array<RunAbandoned | RunFailed | RunStarted>; attempt: number; takeoverOf: string | null };

/**
 * Whether a run of a date key may start, as a pure decision: a running key only once its lease
 * expired (the new run takes it over) or when the start supersedes that run, a successful key only when forced.
 *
 * @example
 * const d = decideStart(state, command, { nowMs });
 * if (!d.ok) console.error(d.refusal.message);
 */
export function decideStart(state: PipelineState, command: StartCommand, context: { nowMs: number }): Decision<StartDecision> {
  const { slot, pipeline } = command;
  const { nowMs } = context;
  if (Date.parse(slot.logicalDate) > nowMs) {
    return refuse(
      'ledger.futureDate',
      `${pipeline} ${slot.date} is in the future (its logical date ${slot.logicalDate} has not begun); start it once it has, or pick a past date`,
    );
  }
  if (!command.onSchedule && command.runType !== 'manual') {
    const { bounds } = command;
    const at = Date.parse(slot.logicalDate);
    if (bounds && at < Date.parse(bounds.firstLogicalDate)) {
      return refuse(
        'ledger.notASlot',
        `${slot.logicalDate} is before ${pipeline}'s start (its first date is ${bounds.firstDate}); redefine it with an earlier --start to schedule that date, or use --type manual (library: runType: 'manual') for a one-off off-schedule run`,
      );
    }
    if (bounds?.end != null && at > Date.parse(bounds.end)) {
      return refuse(
        'ledger.notASlot',
        `${slot.logicalDate} is after ${pipeline}'s end (${bounds.end}); redefine it with a later --end to schedule that date, or use --type manual (library: runType: 'manual') for a one-off off-schedule run`,
      );
    }
    return refuse('ledger.notASlot', notASlotMessage(pipeline, slot.logicalDate, command.slotsNear ?? []));
  }
  if (command.onSchedule && command.runType !== 'manual' && Date.parse(slot.runAfter) > nowMs) {
    return refuse('ledger.notDue', `${pipeline} ${slot.date} is not due until ${slot.runAfter}; wait, or use --type manual (library: runType: 'manual') to run it early`);
  }
  const current = state.dates.get(slot.date);
  let takeover: RunAbandoned | null = null;
  let superseded: RunFailed | null = null;
  if (current?.runId === command.runId) {
    return refuse('ledger.runIdTaken', `run ${command.runId} is already the ${current.status} attempt ${current.attempt} of ${pipeline} ${slot.date}; a run starts once`);
  }
  if (current?.status === 'running' && command.supersede?.runId === current.runId) {
    superseded = { type: 'RunFailed', schemaVersion: 1, data: { pipeline, date: slot.date, runId: current.runId, error: command.supersede.message, code: 'superseded', ...(command.at === undefined ? {} : { at: command.at }) } };
  } else if (current?.status === 'running') {
    if (!leaseExpired(current, nowMs)) {
      return refuse(
        'ledger.alreadyRunning',
        `${pipeline} ${slot.date} is already running as run ${current.runId} (attempt ${current.attempt}, lease until ${current.leaseExpiresAt}); wait for it, or clear it first`,
      );
    }
    takeover = {
      type: 'RunAbandoned',
      schemaVersion: 1,
      data: { pipeline, date: slot.date, runId: current.runId, reason: 'leaseExpired', supersededBy: command.runId },
    };
  }
  if (current?.status === 'success' && !command.force) {
    const how = current.mark ? `was marked success by ${current.mark.actor}` : `already succeeded (run ${current.runId})`;
    return refuse('ledger.alreadySucceeded', `${pipeline} ${slot.date} ${how}; pass --force (library: force: true) to reprocess it`);
  }
  if (current?.status === 'skipped' && !command.force) {
    return refuse(
      'ledger.alreadySucceeded',
      `${pipeline} ${slot.date} was marked skipped by ${current.mark?.actor ?? 'someone'} (${current.mark?.reason ?? 'no reason'}); pass --force (library: force: true) to run it anyway, or clear it first`,
    );
  }
  if (command.waitFor) {
    return refuse(
      'ledger.waitingForPrevious',
      `${pipeline} depends on past and the slot before ${slot.date}, ${command.waitFor.date}, is ${command.waitFor.status}; run or mark ${command.waitFor.date} first, or start ${slot.date} with --type manual to run it anyway`,
    );
  }
  const attempt = (current?.attempts ?? 0) + 1;
  const started: RunStarted = {
    type: 'RunStarted',
    schemaVersion: 1,
    data: {
      pipeline,
      date: slot.date,
      runId: command.runId,
      attempt,
      runType: command.runType,
      logicalDate: slot.logicalDate,
      dataInterval: slot.dataInterval,
      runAfter: slot.runAfter,
      leaseExpiresAt: new Date(nowMs + command.leaseMs).toISOString(),
      force: current?.status === 'success' || current?.status === 'skipped',
      offSchedule: !command.onSchedule,
      takeoverOf: takeover ? takeover.data.runId : null,
      ...(command.openlineage ? { openlineage: command.openlineage } : {}),
      ...(command.pool ? { pool: command.pool } : {}),
      ...(command.at === undefined ? {} : { at: command.at }),
    },
  };
  const before = takeover ?? superseded;
  return accept({ events: before ? [before, started] : [started], attempt, takeoverOf: started.data.takeoverOf });
}

/**
 * Sends the user to the scheduled slot(s) near the date, and says what the other way, a manual run, does: its
 * success counts for the watermark (which never goes down) while the slot itself stays missing.
 */
function notASlotMessage(pipeline: string, logicalDate: string, near: string[]): string {
  const manual = "--type manual (library: runType: 'manual') records an off-schedule run instead, whose success raises the watermark for good while the scheduled slot stays missing";
  if (near.length === 0) return `${logicalDate} is not a slot of ${pipeline}'s timetable; ${manual}`;
  const shown = near.length > 4 ? `${near.slice(0, 3).join(', ')}, … ${near.at(-1)} (${near.length} slots)` : near.join(', ');
  const which = near.length === 1 ? `its nearest slot is ${shown}` : `its nearest slots are ${shown}`;
  return `${logicalDate} is not a slot of ${pipeline}'s timetable; ${which}: start ${near.length === 1 ? 'that' : 'one of them'} (\`runledger start ${pipeline} ${near[0]}\`); ${manual}`;
}

/**
 * runledger's library API: the ledger and its types, the fleet runner and tasks, notifications, status and
 * metrics, and the pure rules behind upstream waits. The runner's parts, the stores and the demo stay internal.
 *
 * @example
 * import { openLedger } from 'runledger';
 * const ledger = await openLedger({ db: './runledger.db' });
 */
export { openLedger, Ledger } from './open-ledger.js';
export type { FailInput, HeartbeatInput, InterruptInput, LedgerOptions, SucceedInput } from './ledger/ledger.js';
export type * from './ledger/ledger-types.js';
export type { DefineInput } from './ledger/build-definition.js';
export type { TaskInput, TaskResult, TaskRow, TaskGridView, TaskGridInput } from './ledger/task-types.js';
export type { TaskSpec } from '../projections/task-graph.js';
export { lintTasks, type HiddenFailure, type LintOptions, type MaskingWarning } from '../projections/lint-tasks.js';
export type { RunOutcome } from '../projections/derive-run-outcome.js';
export type { TaskDefinition, TriggerRule } from '../events/types/task-definition.js';
export type { TaskState } from '../events/types/task-state-changed.js';
export { LedgerError, ExitCode, isLedgerError, LEDGER_ERROR_CODES, type LedgerErrorCode } from './errors.js';
export { createTimetable } from './timetable/create-timetable.js';
export type { Timetable, TimetableSpec } from './timetable/timetable.js';
export type { Slot, DataInterval } from '../projections/slot.js';
export type { RecordedEvent } from '../events/recorded-event.js';
export type { LedgerEvent, EventType } from '../events/types/ledger-event.js';
export type { RunLog, RunOutput } from '../events/types/common.js';
export type { BackfillOptions, CatchupOptions } from './runner/backfill.js';
export type { WithRunInput, WithRunOptions, WithRunResult } from './runner/with-run.js';
export type { DefineOptions } from './ledger/ledger.js';
export type { Duration } from './ledger/library-options.js';
export type { ControlResult } from './ledger/control-pipelines.js';
export type { PipelineControls } from './ledger/list-controls.js';
export type { PipelineControl } from '../projections/pipeline-control.js';
export type { RetryPolicy, RunControlOptions } from './runner/retry-policy.js';
export type { RetryRequest } from './ledger/ledger-writes.js';
export type { DateStatus, ManualMark, RetryProgress } from '../projections/date-state.js';
export type { PendingReason } from '../projections/pending.js';
export { runNotifier, type NotifierOptions } from './ops/notify/run-notifier.js';
export { webhookDelivery, commandDelivery, renderTemplate, type Deliver } from './ops/notify/deliver-notification.js';
export { NOTIFY_KINDS, type Notification, type NotifyKind } from './ops/notify/notification.js';
export { commandTask, type CommandTask, type CommandTaskOptions } from './runner/command-task.js';
export { functionTask, type RunFunction } from './runner/function-task.js';
export { runFleet, type FleetRequest, type FleetOptions, type FleetSummary } from './runner/run-fleet.js';
export { upstreamSlots, intervalsOverlap, firstBlocking, type BlockedBy, type SlotSource } from '../projections/upstream-slots.js';
export type { Upstream, PipelineCommand } from '../events/types/pipeline-definition.js';
export type { ClearCause } from '../events/types/run-cleared.js';
export type { ClearedBecause } from '../projections/date-state.js';
export type { Metrics, RunContext, RunProgress, RunReport, RunSummary, RunTask, TaskOutcome } from './runner/run-types.js';
export type { Reprocess, PlanReason, PlannedSlot, RunPlan } from '../projections/plan-runs.js';
export type { SubscribeOptions, Subscription, SubscriptionFilter } from './ledger/subscribe.js';
export { readStatus, type StatusView } from './ops/read-status.js';
export { collectMetrics } from './ops/collect-metrics.js';
export { pipelineStatus, compareWorstFirst, type PipelineStatus, type PipelineStatusInput, type PendingCounts, type LastFailure } from '../projections/views/pipeline-status.js';
export { checkStatus, type CheckRules, type CheckRule, type Violation } from '../projections/views/check-status.js';

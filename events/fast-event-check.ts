import type { EventType } from './ledger-event.js';
import { MAX_SIZE_CAP_BYTES, MIN_SIZE_CAP_BYTES } from './limits.js';
import { INSTANT_PATTERN, MAX_PRIORITY, PIPELINE_NAME_PATTERN, POOL_NAME_PATTERN, SHA256_HEX_PATTERN, TASK_ID_PATTERN } from './name-patterns.js';
import { TASK_STATES } from './task-states.js';
import { TRIGGER_RULES } from './trigger-rules.js';

// The zod schemas (ledger-event.ts, event-metadata.ts) written out as plain checks of a JSON.parse result.
// `verify` and `import` check every event against them, and zod's safeParse (which builds a result and a
// copy of each object) was a third of their time per event. These checks only ever say yes sooner:
// `checkEventSchema` asks zod whenever they say no, so zod alone decides what is rejected and words why,
// and an event these accept must be one zod accepts (tests/events/fast-event-check.property.test.ts
// compares both on valid events of every type and on mutations of them). Keys not listed are allowed,
// as zod's objects strip them without failing.

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isText = (v: unknown): boolean => typeof v === 'string' && v.length >= 1;
const isInstant = (v: unknown): boolean => typeof v === 'string' && INSTANT_PATTERN.test(v);
// zod 4's int() takes safe integers only.
const isInt = (v: unknown): v is number => Number.isSafeInteger(v);
const isPositiveInt = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) > 0;
const isBoolean = (v: unknown): boolean => typeof v === 'boolean';
const isNullableString = (v: unknown): boolean => v === null || typeof v === 'string';
const oneOf = (values: readonly string[]) => {
  const set = new Set(values);
  return (v: unknown): boolean => typeof v === 'string' && set.has(v);
};
const isRunType = oneOf(['scheduled', 'manual', 'backfill', 'catchup']);
const isPreviousStatus = oneOf(['running', 'success', 'failed', 'interrupted', 'skipped', 'up_for_retry']);
const isMarkStatus = oneOf(['success', 'skipped']);
const isMarkedPreviousStatus = oneOf(['missing', 'success', 'skipped', 'failed', 'up_for_retry', 'interrupted', 'cleared']);
const isNonNegativeInt = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;
const isAttemptAfterFirst = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 2;
const isTimetable = oneOf(['interval', 'trigger']);
const isTaskState = oneOf(TASK_STATES);
const isTriggerRule = oneOf(TRIGGER_RULES);
const isPipelineName = (v: unknown): boolean => typeof v === 'string' && PIPELINE_NAME_PATTERN.test(v);
const isTaskId = (v: unknown): boolean => typeof v === 'string' && TASK_ID_PATTERN.test(v);
const isSizeCap = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= MIN_SIZE_CAP_BYTES && (v as number) <= MAX_SIZE_CAP_BYTES;
const optional = (check: (v: unknown) => boolean) => (v: unknown): boolean => v === undefined || check(v);
const isOptionalString = optional(isString);
const isOptionalInt = optional(isInt);
const isOptionalPositiveInt = optional(isPositiveInt);
const isOptionalSizeCap = optional(isSizeCap);

/** `RunRef`: every run event's pipeline, date and run id. */
const isRunRef = (d: Json): boolean => isPipelineName(d['pipeline']) && isText(d['date']) && isText(d['runId']);

const isRunLog = (v: unknown): boolean => isObject(v) && isText(v['path']) && typeof v['sha256'] === 'string' && SHA256_HEX_PATTERN.test(v['sha256']);
const isOptionalRunLog = optional(isRunLog);
const isOptionalAt = optional(isInstant);
const isRunOutput = (v: unknown): boolean => isString(v) || (isObject(v) && isText(v['namespace']) && isText(v['name']));
const isOptionalTaskList = optional((v) => Array.isArray(v) && v.every(isString));

const isTaskDefinition = (v: unknown): boolean =>
  isObject(v) &&
  isTaskId(v['id']) &&
  Array.isArray(v['upstream']) &&
  v['upstream'].every(isTaskId) &&
  isTriggerRule(v['triggerRule']) &&
  isBoolean(v['teardown']) &&
  isBoolean(v['failRunOnFailure']);

const isPipelineDefinition = (v: unknown): boolean =>
  isObject(v) &&
  isPipelineName(v['pipeline']) &&
  isText(v['schedule']) &&
  isTimetable(v['timetable']) &&
  isText(v['timezone']) &&
  isInstant(v['start']) &&
  (v['end'] === null || isInstant(v['end'])) &&
  isBoolean(v['catchup']) &&
  isPositiveInt(v['maxActiveRuns']) &&
  isPositiveInt(v['leaseMs']) &&
  (v['tasks'] === undefined || (Array.isArray(v['tasks']) && v['tasks'].every(isTaskDefinition))) &&
  isOptionalPositiveInt(v['freshnessMs']) &&
  (v['openlineage'] === undefined || (isObject(v['openlineage']) && isText(v['openlineage']['namespace']) && isText(v['openlineage']['job']))) &&
  isOptionalSizeCap(v['maxMetricsBytes']) &&
  isOptionalSizeCap(v['maxErrorBytes']) &&
  isOptionalPositiveInt(v['retries']) &&
  optional(isNonNegativeInt)(v['retryDelayMs']) &&
  (v['retryExponential'] === undefined || v['retryExponential'] === true) &&
  isOptionalPositiveInt(v['maxRetryDelayMs']) &&
  isOptionalPositiveInt(v['timeoutMs']) &&
  (v['dependsOnPast'] === undefined || v['dependsOnPast'] === true) &&
  isOptionalPositiveInt(v['slaMs']) &&
  (v['upstreams'] === undefined || (Array.isArray(v['upstreams']) && v['upstreams'].every(isUpstream))) &&
  (v['command'] === undefined || isPipelineCommand(v['command'])) &&
  (v['earlierTimetables'] === undefined || (Array.isArray(v['earlierTimetables']) && v['earlierTimetables'].length >= 1 && v['earlierTimetables'].every(isEarlierTimetable))) &&
  optional(isPoolName)(v['pool']) &&
  optional(isPriority)(v['priority']);

function isEarlierTimetable(v: unknown): boolean {
  return isObject(v) && isText(v['schedule']) && isTimetable(v['timetable']) && isText(v['timezone']) && isInstant(v['start']) && isInstant(v['until']);
}

const isPoolName = (v: unknown): boolean => typeof v === 'string' && POOL_NAME_PATTERN.test(v);
const isPriority = (v: unknown): boolean => Number.isSafeInteger(v) && Math.abs(v as number) <= MAX_PRIORITY;
const isPoolPlace = (v: unknown): boolean => isObject(v) && isPoolName(v['name']) && isPositiveInt(v['size']);

const isUpstreamMapping = oneOf(['overlap', 'previous']);
function isUpstream(v: unknown): boolean {
  return isObject(v) && isPipelineName(v['pipeline']) && isUpstreamMapping(v['mapping']);
}
function isPipelineCommand(v: unknown): boolean {
  return isObject(v) && Array.isArray(v['argv']) && v['argv'].length >= 1 && v['argv'].every(isString) && (v['shell'] === undefined || isBoolean(v['shell']));
}
const isClearCause = (v: unknown): boolean => isObject(v) && isText(v['eventId']) && isPipelineName(v['pipeline']) && isText(v['date']);

// zod 4 requires a key typed z.unknown() to be present; JSON has no undefined, so present is enough.
const isChange = (v: unknown): boolean => isObject(v) && isString(v['field']) && v['from'] !== undefined && v['to'] !== undefined;

const isOpenLineageOrigin = (v: unknown): boolean => isObject(v) && isText(v['namespace']) && isText(v['job']) && isInstant(v['eventTime']);
const isOptionalOpenLineageOrigin = optional(isOpenLineageOrigin);

const dataChecks: Readonly<Record<EventType, (d: Json) => boolean>> = {
  PipelineDefined: isPipelineDefinition,
  PipelinePaused: (d) => isPipelineName(d['pipeline']),
  PipelineUnpaused: (d) => isPipelineName(d['pipeline']),
  PipelineRetired: (d) => isPipelineName(d['pipeline']),
  PipelineUnretired: (d) => isPipelineName(d['pipeline']),
  PipelineRedefined: (d) => isPipelineName(d['pipeline']) && isPipelineDefinition(d['definition']) && Array.isArray(d['changes']) && d['changes'].every(isChange),
  RunStarted: (d) =>
    isRunRef(d) &&
    isPositiveInt(d['attempt']) &&
    isRunType(d['runType']) &&
    isInstant(d['logicalDate']) &&
    isObject(d['dataInterval']) &&
    isInstant(d['dataInterval']['start']) &&
    isInstant(d['dataInterval']['end']) &&
    isInstant(d['runAfter']) &&
    isInstant(d['leaseExpiresAt']) &&
    isBoolean(d['force']) &&
    isBoolean(d['offSchedule']) &&
    isNullableString(d['takeoverOf']) &&
    isOptionalOpenLineageOrigin(d['openlineage']) &&
    optional(isPoolPlace)(d['pool']) &&
    isOptionalAt(d['at']),
  RunSucceeded: (d) => isRunRef(d) && isObject(d['metrics']) && Array.isArray(d['outputs']) && d['outputs'].every(isRunOutput) && isOptionalRunLog(d['log']) && isOptionalAt(d['at']) && isOptionalTaskList(d['unreportedTasks']) && (d['inputs'] === undefined || (Array.isArray(d['inputs']) && d['inputs'].every((v) => isObject(v) && isText(v['namespace']) && isText(v['name'])))),
  RunFailed: (d) => isRunRef(d) && isString(d['error']) && isNullableString(d['code']) && isOptionalRunLog(d['log']) && isOptionalAt(d['at']) && isOptionalTaskList(d['unreportedTasks']),
  RunCleared: (d) => isRunRef(d) && isPreviousStatus(d['previousStatus']) && optional(isClearCause)(d['cause']),
  RunHeartbeat: (d) => isRunRef(d) && isInstant(d['leaseExpiresAt']) && isOptionalAt(d['at']),
  RunAbandoned: (d) => isRunRef(d) && d['reason'] === 'leaseExpired' && isString(d['supersededBy']),
  RunInterrupted: (d) => isRunRef(d) && isText(d['by']) && isString(d['message']) && isOptionalRunLog(d['log']) && isOptionalAt(d['at']),
  TaskStateChanged: (d) => isRunRef(d) && isTaskId(d['taskId']) && isTaskState(d['state']) && isPositiveInt(d['tryNumber']) && isNullableString(d['error']) && isOptionalAt(d['at']),
  RunMarked: (d) =>
    isRunRef(d) &&
    isMarkStatus(d['status']) &&
    isInstant(d['logicalDate']) &&
    isObject(d['dataInterval']) &&
    isInstant(d['dataInterval']['start']) &&
    isInstant(d['dataInterval']['end']) &&
    isInstant(d['runAfter']) &&
    isMarkedPreviousStatus(d['previousStatus']),
  RetryScheduled: (d) => isRunRef(d) && isAttemptAfterFirst(d['attempt']) && isAttemptAfterFirst(d['maxAttempts']) && isInstant(d['nextAt']) && isNonNegativeInt(d['delayMs']),
};

/**
 * True when a JSON-parsed event's body passes its zod schema in `LedgerEvent`
 * for sure; false means "ask zod" (it may still pass). Only for values that
 * came out of `JSON.parse`.
 *
 * @example
 * fastEventBodyOk('RunHeartbeat', 1, { pipeline: 'p', date: '2026-01-01', runId: 'R1', leaseExpiresAt: '2026-01-01T01:00:00Z' }) // true
 */
export function fastEventBodyOk(type: EventType, schemaVersion: number, data: Json): boolean {
  // An own key only: `dataChecks['constructor']` is Object, which hands `data` back, and that reads as yes.
  if (!Object.hasOwn(dataChecks, type)) return false;
  return schemaVersion === 1 && isObject(data) && dataChecks[type](data) === true;
}

/**
 * True when a JSON-parsed event's `metadata` passes `EventMetadata` for sure; false means "ask zod".
 *
 * @example
 * fastMetadataOk({ actor: 'cli', toolVersion: '0.1.0' }) // true
 */
export function fastMetadataOk(metadata: unknown): boolean {
  return (
    isObject(metadata) &&
    isText(metadata['actor']) &&
    isOptionalString(metadata['host']) &&
    isOptionalInt(metadata['pid']) &&
    isOptionalString(metadata['reason']) &&
    isString(metadata['toolVersion'])
  );
}

import { illFormedTextAt } from '../../../events/well-formed-text.js';
import { z } from 'zod';
import { FIRST_ISSUE_ONLY } from '../../first-issue-only.js';

/**
 * The OpenLineage 2-0-2 event schema (spec/OpenLineage.json) and the facets
 * runledger reads (NominalTime, Parent, ErrorMessage, JobType), as zod
 * schemas with the spec's rules: required fields, `date-time`, `uri` and
 * `uuid` formats, and the `_producer`/`_schemaURL` every facet must carry.
 * Unknown facets and fields pass, as the spec allows. A test checks that
 * every fixture is judged the same by these schemas and by the spec's own
 * JSON Schema files.
 */

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}(:?\d{2})?)$/;

/** True for an RFC 3339 date-time with a zone that names a real instant (no 2026-02-30, no 24:00). */
export function isDateTime(text: string): boolean {
  const m = DATE_TIME.exec(text);
  if (!m) return false;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return mo >= 1 && mo <= 12 && d >= 1 && d <= days && h <= 23 && mi <= 59 && s <= 60;
}

/** Milliseconds of a date-time accepted by `isDateTime` (a leap second counts as the second before). */
export function dateTimeMs(text: string): number {
  const normal = text.replace(' ', 'T').replace(/:60(\.\d+)?/, ':59$1').replace(/([+-]\d{2})(\d{2})$/, '$1:$2').replace(/([+-]\d{2})$/, '$1:00');
  return Date.parse(normal.toUpperCase());
}

const ZONELESS = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
const DateTime = z.string().superRefine((text, ctx) => {
  if (isDateTime(text)) return;
  const message = ZONELESS.test(text)
    ? `'${text}' has no zone, so it names no instant (it could be any of 26 hours); send it with Z or an offset, like 2026-11-02T00:00:00Z`
    : 'must be an RFC 3339 date-time with a zone, like 2026-11-02T00:00:00Z';
  ctx.addIssue({ code: 'custom', message, continue: false });
});
// Each rule aborts (`abort`, `continue: false`): a list of datasets stops at its first bad one, not after the last.
const Uri = z.string().regex(/^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/, { message: 'must be a URI, like https://github.com/apache/airflow', abort: true });
const Uuid = z.string().regex(/^(?:urn:uuid:)?[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i, { message: 'must be a UUID, like 01932a3c-7e5e-7b4c-9a6d-0f5b8a1c2d3e', abort: true });

/** Every facet: its producer and schema URIs (the spec's BaseFacet); anything else passes. */
const BaseFacet = z.looseObject({ _producer: Uri, _schemaURL: Uri });
const DeletableFacet = BaseFacet.extend({ _deleted: z.boolean().optional() });

const NominalTimeFacet = BaseFacet.extend({ nominalStartTime: DateTime, nominalEndTime: DateTime.optional() });
const ErrorMessageFacet = BaseFacet.extend({ message: z.string(), programmingLanguage: z.string(), stackTrace: z.string().optional() });
const JobRef = z.looseObject({ namespace: z.string(), name: z.string(), facets: z.record(z.string(), DeletableFacet).optional() });
const RunRef = z.looseObject({ runId: Uuid, facets: z.record(z.string(), BaseFacet).optional() });
const ParentFacet = BaseFacet.extend({ run: RunRef, job: JobRef, root: z.looseObject({ run: RunRef, job: JobRef }).optional() });
const JobTypeFacet = DeletableFacet.extend({ processingType: z.string(), integration: z.string(), jobType: z.string().optional() });

const RunFacets = z
  .looseObject({ nominalTime: NominalTimeFacet.optional(), parent: ParentFacet.optional(), errorMessage: ErrorMessageFacet.optional() })
  .catchall(BaseFacet);
const JobFacets = z.looseObject({ jobType: JobTypeFacet.optional() }).catchall(DeletableFacet);

/** Most input (and output) datasets one event may carry: real jobs read a handful, and each costs validation. */
export const MAX_EVENT_DATASETS = 1000;
const datasets = <T extends z.ZodType>(dataset: T, which: string) =>
  z.array(dataset).max(MAX_EVENT_DATASETS, `holds more than ${MAX_EVENT_DATASETS} ${which} datasets; an event may carry at most ${MAX_EVENT_DATASETS}`);

const Dataset = z.looseObject({ namespace: z.string(), name: z.string(), facets: z.record(z.string(), DeletableFacet).optional() });
const InputDataset = Dataset.extend({ inputFacets: z.record(z.string(), BaseFacet).optional() });
const OutputDataset = Dataset.extend({ outputFacets: z.record(z.string(), BaseFacet).optional() });

// `schemaURL` is required by the spec, yet some producers leave it out; it only names the spec version, so
// such an event is read as 2-0-2 and its result says so (`notes`).
const BaseEvent = z.looseObject({ eventTime: DateTime, producer: Uri, schemaURL: Uri.optional() });

export const EventType = z.enum(['START', 'RUNNING', 'COMPLETE', 'ABORT', 'FAIL', 'OTHER']);
export type EventType = z.infer<typeof EventType>;

/** A run's state transition: the only kind of event that turns into ledger runs. */
export const RunEvent = BaseEvent.extend({
  eventType: EventType.optional(),
  run: z.looseObject({ runId: Uuid, facets: RunFacets.optional() }),
  job: z.looseObject({ namespace: z.string(), name: z.string(), facets: JobFacets.optional() }),
  inputs: datasets(InputDataset, 'input').optional(),
  outputs: datasets(OutputDataset, 'output').optional(),
});
export type RunEvent = z.infer<typeof RunEvent>;

/** Static metadata about a job or dataset (no run): valid, and nothing to record. */
const JobEvent = BaseEvent.extend({ job: JobRef, inputs: datasets(InputDataset, 'input').optional(), outputs: datasets(OutputDataset, 'output').optional() });
const DatasetEvent = BaseEvent.extend({ dataset: Dataset });

/** `notes`: what was assumed to read the event (no `schemaURL`), said in its result. */
export type ParsedLineageEvent = { kind: 'run'; event: RunEvent; notes?: string[] } | { kind: 'job' | 'dataset'; notes?: string[] };

const NO_SCHEMA_URL = 'the event has no schemaURL; read as OpenLineage 2-0-2';
export type LineageParse = { ok: true; value: ParsedLineageEvent } | { ok: false; path: string; message: string };

/**
 * Checks one decoded JSON value against the OpenLineage schema. A failure
 * names the path of the first field that breaks a rule, e.g.
 * `run.runId: must be a UUID`.
 *
 * @example
 * parseLineageEvent({ eventType: 'START', eventTime: '…', … }) // { ok: true, value: { kind: 'run', event } }
 */
export function parseLineageEvent(value: unknown): LineageParse {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, path: '(event)', message: 'an event is a JSON object' };
  const raw = value as Record<string, unknown>;
  // A lone surrogate anywhere is refused, as every input refuses one: no UTF-8 text can hold it.
  const illFormed = illFormedTextAt(value, '');
  if (illFormed !== null) return { ok: false, path: illFormed.path, message: `holds a lone UTF-16 surrogate at character ${illFormed.index}; send well-formed Unicode text` };
  const result = parseKnown(value, raw);
  return result.ok && raw['schemaURL'] === undefined ? { ok: true, value: { ...result.value, notes: [NO_SCHEMA_URL] } } : result;
}

function parseKnown(value: unknown, raw: Record<string, unknown>): LineageParse {
  const hasRun = raw['run'] !== undefined;
  if (hasRun || (raw['job'] === undefined && raw['dataset'] === undefined)) {
    const parsed = RunEvent.safeParse(value, FIRST_ISSUE_ONLY);
    return parsed.success ? { ok: true, value: { kind: 'run', event: parsed.data } } : failure(parsed.error.issues);
  }
  if (raw['job'] !== undefined) {
    const parsed = JobEvent.safeParse(value, FIRST_ISSUE_ONLY);
    return parsed.success ? { ok: true, value: { kind: 'job' } } : failure(parsed.error.issues);
  }
  if (raw['run'] !== undefined || raw['job'] !== undefined) return { ok: false, path: '(event)', message: 'a DatasetEvent must not carry a job and a run' };
  const parsed = DatasetEvent.safeParse(value, FIRST_ISSUE_ONLY);
  return parsed.success ? { ok: true, value: { kind: 'dataset' } } : failure(parsed.error.issues);
}

function failure(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string; code?: string }>): LineageParse {
  const issue = issues[0];
  if (!issue) return { ok: false, path: '(event)', message: 'invalid' };
  const path = issue.path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${String(key)}` : String(key)), '');
  const message = /^Invalid input: expected \w+, received undefined$/.test(issue.message) ? 'is required' : issue.message;
  return { ok: false, path: path || '(event)', message };
}

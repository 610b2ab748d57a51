import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { checkEventSchema } from '../../events/decode-event.js';
import { EventMetadata } from '../../events/event-metadata.js';
import { fastEventBodyOk, fastMetadataOk } from '../../events/fast-event-check.js';
import { LedgerEvent, type EventType } from '../../events/ledger-event.js';

// The plain checks must say exactly what the zod schemas say, on anything JSON.parse can produce: valid events
// of every type (with and without their optional fields) and every one of them mutated at every path.

const I = '2026-11-05T00:00:00.000Z';
const ref = { pipeline: 'orders_etl', date: '2026-11-04', runId: '01JC0000000000000000000000' };
const log = { path: '/var/log/runledger/orders.log', sha256: 'a'.repeat(64) };
const task = { id: 'load', upstream: ['extract', 'clean.up-1'], triggerRule: 'all_success', teardown: false, failRunOnFailure: false };
const definition = { pipeline: 'orders_etl', schedule: '@daily', timetable: 'interval', timezone: 'Europe/Berlin', start: '2026-01-01T00:00:00Z', end: null, catchup: true, maxActiveRuns: 1, leaseMs: 3_600_000 };
const fullDefinition = {
  ...definition,
  end: '2027-01-01T00:00:00+01:00',
  tasks: [task, { ...task, id: 'extract', upstream: [], triggerRule: 'always', teardown: true, failRunOnFailure: true }],
  freshnessMs: 7_200_000,
  openlineage: { namespace: 'default', job: 'orders' },
  maxMetricsBytes: 1024,
  maxErrorBytes: 16 * 1024 * 1024,
  retries: 3,
  retryDelayMs: 300_000,
  retryExponential: true,
  maxRetryDelayMs: 3_600_000,
  timeoutMs: 7_200_000,
  dependsOnPast: true,
  slaMs: 7_200_000,
  earlierTimetables: [{ schedule: '@daily', timetable: 'trigger', timezone: 'UTC', start: '2026-01-01T00:00:00Z', until: '2026-06-01T00:00:00Z' }],
};

const VALID: Array<[EventType, Record<string, unknown>]> = [
  ['PipelineDefined', definition],
  ['PipelineDefined', fullDefinition],
  ['PipelineRedefined', { pipeline: 'orders_etl', definition: fullDefinition, changes: [{ field: 'schedule', from: '@daily', to: '@hourly' }, { field: 'tasks', from: null, to: [task] }] }],
  ['PipelineRedefined', { pipeline: 'orders_etl', definition, changes: [] }],
  [
    'RunStarted',
    { ...ref, attempt: 1, runType: 'scheduled', logicalDate: I, dataInterval: { start: I, end: '2026-11-06T00:00:00+00:00' }, runAfter: I, leaseExpiresAt: I, force: false, offSchedule: false, takeoverOf: null },
  ],
  [
    'RunStarted',
    { ...ref, attempt: 3, runType: 'catchup', logicalDate: I, dataInterval: { start: I, end: I }, runAfter: I, leaseExpiresAt: I, force: true, offSchedule: true, takeoverOf: 'R0', openlineage: { namespace: 'ns', job: 'j', eventTime: I } },
  ],
  ['RunSucceeded', { ...ref, metrics: { rows: 10, nested: { a: [1, 'x'] } }, outputs: ['s3://bucket/a'] }],
  ['RunSucceeded', { ...ref, metrics: {}, outputs: [], log }],
  ['RunFailed', { ...ref, error: 'boom', code: null }],
  ['RunFailed', { ...ref, error: '', code: 'E1', log }],
  ['RunCleared', { ...ref, previousStatus: 'failed' }],
  ['RunHeartbeat', { ...ref, leaseExpiresAt: '2026-11-05T01:00:00-05:30' }],
  ['RunAbandoned', { ...ref, reason: 'leaseExpired', supersededBy: 'R2' }],
  ['RunInterrupted', { ...ref, by: 'SIGINT', message: 'not started' }],
  ['RunInterrupted', { ...ref, by: 'aborted', message: '', log }],
  ['TaskStateChanged', { ...ref, taskId: 'load', state: 'up_for_retry', tryNumber: 2, error: null }],
  ['TaskStateChanged', { ...ref, taskId: 'load', state: 'failed', tryNumber: 1, error: 'x' }],
  ['RunCleared', { ...ref, previousStatus: 'skipped' }],
  ['RunCleared', { ...ref, previousStatus: 'up_for_retry' }],
  ['RunMarked', { ...ref, status: 'skipped', logicalDate: I, dataInterval: { start: I, end: '2026-11-06T00:00:00+00:00' }, runAfter: I, previousStatus: 'missing' }],
  ['RunMarked', { ...ref, status: 'success', logicalDate: I, dataInterval: { start: I, end: I }, runAfter: I, previousStatus: 'up_for_retry' }],
  ['RetryScheduled', { ...ref, attempt: 2, maxAttempts: 4, nextAt: I, delayMs: 300_000 }],
  ['RetryScheduled', { ...ref, attempt: 4, maxAttempts: 4, nextAt: '2026-11-05T01:00:00-05:30', delayMs: 0 }],
  // The producer's own time (`at`), outputs kept as namespace and name, and tasks a verdict left unreported.
  [
    'RunStarted',
    { ...ref, attempt: 1, runType: 'manual', logicalDate: I, dataInterval: { start: I, end: I }, runAfter: I, leaseExpiresAt: I, force: false, offSchedule: false, takeoverOf: null, at: '2026-11-05T00:00:05.120Z' },
  ],
  ['RunSucceeded', { ...ref, metrics: {}, outputs: [{ namespace: 'dbfs', name: '/user/hive/warehouse/temp' }, 'plain'], at: I, unreportedTasks: ['load'] }],
  ['RunFailed', { ...ref, error: 'boom', code: null, at: I, unreportedTasks: [] }],
  ['RunHeartbeat', { ...ref, leaseExpiresAt: I, at: I }],
  ['RunInterrupted', { ...ref, by: 'OpenLineage ABORT', message: '', at: I }],
  ['TaskStateChanged', { ...ref, taskId: 'load', state: 'upstream_failed', tryNumber: 1, error: null, at: I }],
];

const METADATA: unknown[] = [
  { actor: 'cli', toolVersion: '0.1.0' },
  { actor: 'runner', host: 'h1', pid: 4242, reason: 'rerun after fix', toolVersion: '' },
];

// Values JSON.parse can produce that sit on the edges of the schemas (JSON.parse('1e400') is Infinity, '-0' is -0).
const ODD_VALUES: unknown[] = [
  null, true, false, 0, -0, 1, -1, 1.5, 1023, 1024, 16 * 1024 * 1024 + 1, 2 ** 53 - 1, 2 ** 53, Infinity, -Infinity,
  '', 'x', 'A B', '1', 'orders_etl', 'Orders', 'leaseExpired', 'running', 'success', 'skipped', 'missing', 'up_for_retry', 'removed', 2, 3, 'manual', 'trigger', 'all_done', 'a'.repeat(64), 'A'.repeat(64),
  I, '2026-11-05 00:00:00Z', '2026-11-05T00:00:00.Z', '2026-11-05T00:00:00+0100', `${I}\n`, 'x'.repeat(129), 'y'.repeat(251),
  [], [''], ['x'], [null], [task], {}, { a: 1 }, { start: I, end: I }, { namespace: 'n', job: 'j' }, { namespace: 'n', job: 'j', eventTime: I }, log, task, definition,
];

const bodyByZod = (type: EventType, data: unknown) => LedgerEvent.safeParse({ type, schemaVersion: 1, data }).success;

/** Every path to a value inside `value` (object keys and array indexes), the root excluded. */
function paths(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof value !== 'object' || value === null) return [];
  const keys = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return keys.flatMap((key) => [[...prefix, key], ...paths((value as Record<string | number, unknown>)[key], [...prefix, key])]);
}

/** A deep copy of `value` with the value at `path` replaced (or removed, for `undefined`). */
function mutate(value: unknown, path: Array<string | number>, replacement: unknown): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path.at(-1) as string | number;
  if (replacement === undefined) {
    if (Array.isArray(node)) node.splice(last as number, 1);
    else delete node[last];
  } else node[last] = replacement;
  return copy;
}

describe('the plain event checks decide as the zod schemas do', () => {
  test.each(VALID.map(([type, data], i) => [`${type} #${i}`, type, data] as const))('%s: valid, and so is each extra key', (_label, type, data) => {
    expect(bodyByZod(type, data)).toBe(true);
    expect(fastEventBodyOk(type, 1, data)).toBe(true);
    expect(fastEventBodyOk(type, 1, { ...data, extra: [1] })).toBe(bodyByZod(type, { ...data, extra: [1] }));
    expect(fastEventBodyOk(type, 2, data)).toBe(false);
  });

  test.each(VALID.map(([type, data], i) => [`${type} #${i}`, type, data] as const))('%s: every path removed or set to every odd value', (_label, type, data) => {
    let rejected = 0;
    for (const path of paths(data)) {
      for (const replacement of [undefined, ...ODD_VALUES]) {
        const mutated = mutate(data, path, replacement) as Record<string, unknown>;
        const zod = bodyByZod(type, mutated);
        if (fastEventBodyOk(type, 1, mutated) !== zod) throw new Error(`${type} with ${path.join('.')} = ${JSON.stringify(replacement)}: zod says ${zod}`);
        if (!zod) rejected += 1;
      }
    }
    // The mutations reach the checks that reject: a table that only ever produced valid events would prove nothing.
    expect(rejected).toBeGreaterThan(10);
  });

  test('an event body of another type, or random JSON in place of any part of it, is judged the same', () => {
    const types = [...new Set(VALID.map(([type]) => type))];
    fc.assert(
      fc.property(fc.constantFrom(...VALID), fc.constantFrom(...types), fc.nat(), fc.jsonValue(), ([, data], type, pick, json) => {
        const all = paths(data);
        const mutated = all.length === 0 ? data : (mutate(data, all[pick % all.length] as Array<string | number>, json) as Record<string, unknown>);
        expect(fastEventBodyOk(type, 1, mutated)).toBe(bodyByZod(type, mutated));
        if (typeof json === 'object' && json !== null && !Array.isArray(json)) expect(fastEventBodyOk(type, 1, json)).toBe(bodyByZod(type, json));
      }),
      { numRuns: 3000 },
    );
  });

  test('own "__proto__" keys, as only JSON.parse makes them, are judged the same', () => {
    // The mutations above assign keys, and assigning "__proto__" sets a prototype instead of making a key:
    // these come from JSON text, as every payload that verify and import check does.
    const inject = (value: unknown, extra: string): string => {
      if (Array.isArray(value)) return `[${value.map((v) => inject(v, extra)).join(',')}]`;
      if (typeof value !== 'object' || value === null) return JSON.stringify(value);
      const parts = Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${JSON.stringify(k)}:${inject(v, extra)}`);
      return `{${['"__proto__":' + extra, ...parts].join(',')}}`;
    };
    const extras = ['null', '1', '"x"', '[]', '{}', JSON.stringify(ref), JSON.stringify({ from: 1, to: 2, field: 'f' }), JSON.stringify(definition)];
    for (const [type, data] of VALID) {
      for (const extra of extras) {
        const parsed = JSON.parse(inject(data, extra)) as Record<string, unknown>;
        expect(fastEventBodyOk(type, 1, parsed), `${type} with "__proto__": ${extra}`).toBe(bodyByZod(type, parsed));
        for (const key of Object.keys(data)) {
          const missing = JSON.parse(inject({ ...data, [key]: undefined }, extra)) as Record<string, unknown>;
          expect(fastEventBodyOk(type, 1, missing), `${type} without ${key}, "__proto__": ${extra}`).toBe(bodyByZod(type, missing));
        }
      }
    }
    for (const extra of extras) {
      const metadata = JSON.parse(inject({ toolVersion: 'v' }, extra));
      expect(fastMetadataOk(metadata)).toBe(EventMetadata.safeParse(metadata).success);
    }
  });

  test('a name that is no event type but an Object.prototype member is never accepted', () => {
    // checkEventSchema is only handed known types today; the table lookup must not find Object, toString, ... either.
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      expect(fastEventBodyOk(name as EventType, 1, { ...ref })).toBe(false);
    }
  });

  test('metadata: valid, mutated at every field, and random JSON', () => {
    for (const metadata of METADATA) {
      expect(fastMetadataOk(metadata)).toBe(true);
      for (const path of [...paths(metadata), ['pid'], ['host'], ['reason']]) {
        for (const replacement of [undefined, ...ODD_VALUES]) {
          const mutated = mutate(metadata, path, replacement);
          expect(fastMetadataOk(mutated), `${path.join('.')} = ${JSON.stringify(replacement)}`).toBe(EventMetadata.safeParse(mutated).success);
        }
      }
    }
    for (const odd of [undefined, ...ODD_VALUES]) expect(fastMetadataOk(odd)).toBe(EventMetadata.safeParse(odd).success);
    fc.assert(
      fc.property(fc.jsonValue(), (json) => {
        expect(fastMetadataOk(json)).toBe(EventMetadata.safeParse(json).success);
      }),
      { numRuns: 1000 },
    );
  });

  test('checkEventSchema gives the reason zod alone gives, on valid and mutated events', () => {
    const zodOnly = (raw: Record<string, unknown>, type: EventType, data: Record<string, unknown>): string | null => {
      const body = LedgerEvent.safeParse({ type, schemaVersion: 1, data });
      if (!body.success) return `${type}: ${firstIssue(body.error.issues)}`;
      const meta = EventMetadata.safeParse(raw['metadata']);
      if (!meta.success) return `${type} metadata: ${firstIssue(meta.error.issues)}`;
      return null;
    };
    const envelope = { position: 1, eventId: 'E1', stream: 'orders_etl', streamVersion: 1, recordedAt: I };
    let rejected = 0;
    for (const [type, data] of VALID) {
      for (const path of paths(data)) {
        for (const replacement of [undefined, null, 0, '', 'x', [], {}]) {
          const mutated = mutate(data, path, replacement) as Record<string, unknown>;
          for (const metadata of [METADATA[0], { actor: '' }]) {
            const raw = { ...envelope, type, schemaVersion: 1, data: mutated, metadata };
            const expected = zodOnly(raw, type, mutated);
            expect(checkEventSchema(raw, type, { schemaVersion: 1, data: mutated })).toBe(expected);
            if (expected !== null) rejected += 1;
          }
        }
      }
    }
    expect(rejected).toBeGreaterThan(100);
  });

  test('metrics or redefinition values nested deeper than 64 levels are no event runledger wrote, whatever zod says', () => {
    const nest = (depth: number): unknown => {
      let value: unknown = 1;
      for (let i = 0; i < depth; i++) value = { n: value };
      return value;
    };
    const envelope = { position: 1, eventId: 'E1', stream: 'orders_etl', streamVersion: 1, recordedAt: I, metadata: METADATA[0] };
    const succeeded = (metrics: unknown) => ({ ...ref, metrics, outputs: [] });
    const redefined = (to: unknown) => ({ pipeline: 'orders_etl', definition, changes: [{ field: 'maxActiveRuns', from: 1, to }] });
    for (const [type, at64, at65, field] of [
      ['RunSucceeded', succeeded(nest(64)), succeeded(nest(65)), 'metrics'],
      ['RunSucceeded', succeeded(nest(64)), succeeded(nest(20_000)), 'metrics'],
      ['PipelineRedefined', redefined(nest(63)), redefined(nest(64)), 'changes'],
    ] as const) {
      expect(bodyByZod(type, at65), 'zod alone takes it').toBe(true);
      expect(checkEventSchema({ ...envelope, type, schemaVersion: 1, data: at64 }, type, { schemaVersion: 1, data: at64 })).toBeNull();
      expect(checkEventSchema({ ...envelope, type, schemaVersion: 1, data: at65 }, type, { schemaVersion: 1, data: at65 })).toBe(`${type}: data.${field} nests deeper than 64 levels`);
    }
  });
});

function firstIssue(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string {
  const issue = issues[0];
  if (!issue) return 'invalid';
  const path = issue.path.map(String).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}

import type { LedgerEvent } from '../events/ledger-event.js';
import { runStream } from '../events/recorded-event.js';
import type { AppendRequest, EventStore, NewEvent } from '../src/store/event-store.js';

/** "Now" of every benchmark ledger: the last of the 1,000 daily slots is due. */
export const BENCH_NOW = Date.parse('2026-11-05T00:00:00Z');
const DAY = 86_400_000;
const META = { actor: 'bench', toolVersion: 'bench' };
const LEASE = '2026-11-05T01:00:00.000Z';

export type FixtureShape = { pipelines: number; dates: number; eventsPerPipeline: number };

export function pipelineName(i: number): string {
  return `pipeline_${String(i).padStart(4, '0')}`;
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function instant(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}+00:00`;
}

/** A small deterministic hash, so every run builds the same ledger. */
function mix(a: number, b: number): number {
  let h = (Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x7f4a7c15, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
  return (h ^ (h >>> 12)) % 100;
}

/**
 * The run events of one date, in one of the shapes real schedulers leave:
 * 70% start+success, 10% with heartbeats, 10% a failure then a retry that
 * succeeds, 5% success then a clear and a re-run, 5% a failure left as it is.
 */
function dateEvents(pipeline: string, p: number, d: number, firstDay: number): LedgerEvent[] {
  const startMs = firstDay + d * DAY;
  const date = isoDay(startMs);
  const ref = { pipeline, date };
  const interval = { start: instant(startMs), end: instant(startMs + DAY) };
  const out: LedgerEvent[] = [];
  let attempt = 0;
  const start = (): string => {
    attempt += 1;
    const runId = `R${p}-${d}-${attempt}`;
    out.push({
      type: 'RunStarted',
      schemaVersion: 1,
      data: { ...ref, runId, attempt, runType: 'scheduled', logicalDate: interval.start, dataInterval: interval, runAfter: interval.end, leaseExpiresAt: LEASE, force: attempt > 1, offSchedule: false, takeoverOf: null },
    });
    return runId;
  };
  const succeed = (runId: string) => out.push({ type: 'RunSucceeded', schemaVersion: 1, data: { ...ref, runId, metrics: { rows: 1000 + d, rejected: d % 7 }, outputs: [`gold/${pipeline}/${date}.parquet`] } });
  const fail = (runId: string) => out.push({ type: 'RunFailed', schemaVersion: 1, data: { ...ref, runId, error: 'upstream table not ready', code: 'exit 1' } });
  const roll = mix(p, d);
  if (roll < 70) succeed(start());
  else if (roll < 80) {
    const runId = start();
    out.push({ type: 'RunHeartbeat', schemaVersion: 1, data: { ...ref, runId, leaseExpiresAt: LEASE } });
    out.push({ type: 'RunHeartbeat', schemaVersion: 1, data: { ...ref, runId, leaseExpiresAt: LEASE } });
    succeed(runId);
  } else if (roll < 90) {
    fail(start());
    succeed(start());
  } else if (roll < 95) {
    const runId = start();
    succeed(runId);
    out.push({ type: 'RunCleared', schemaVersion: 1, data: { ...ref, runId, previousStatus: 'success' } });
    succeed(start());
  } else fail(start());
  return out;
}

/**
 * Builds the realistic ledger of the benchmark: `pipelines` daily pipelines,
 * each with a timetable of `dates` dates ending today and `eventsPerPipeline`
 * events covering its most recent dates (the older ones were never
 * backfilled, so `pending` has work to list). Events are appended date by
 * date across all pipelines, as a scheduler would, so each pipeline's events
 * are spread over the whole log. Returns the number of events.
 */
export async function buildFixture(store: EventStore, shape: FixtureShape): Promise<number> {
  const firstDay = BENCH_NOW - shape.dates * DAY;
  // Per pipeline, the dates it covers: from the most recent back until its event budget is spent.
  const plans: Array<Map<number, LedgerEvent[]>> = [];
  for (let p = 0; p < shape.pipelines; p++) {
    const plan = new Map<number, LedgerEvent[]>();
    let budget = shape.eventsPerPipeline - 1;
    for (let d = shape.dates - 1; d >= 0 && budget > 0; d--) {
      const events = dateEvents(pipelineName(p), p, d, firstDay).slice(0, budget);
      plan.set(d, events);
      budget -= events.length;
    }
    plans.push(plan);
  }
  let k = 0;
  const envelope = (event: LedgerEvent, stream: string, recordedMs: number): NewEvent =>
    ({ ...event, eventId: `B${String(++k).padStart(25, '0')}`, stream, recordedAt: new Date(recordedMs).toISOString(), metadata: META }) as NewEvent;
  const definitions: AppendRequest[] = [];
  for (let p = 0; p < shape.pipelines; p++) {
    const pipeline = pipelineName(p);
    const definition: LedgerEvent = {
      type: 'PipelineDefined',
      schemaVersion: 1,
      data: { pipeline, schedule: '@daily', timetable: 'interval', timezone: 'UTC', start: instant(firstDay), end: null, catchup: true, maxActiveRuns: 1, leaseMs: 3_600_000 },
    };
    definitions.push({ stream: pipeline, expectedVersion: 0, events: [envelope(definition, pipeline, firstDay)] });
  }
  await store.append(definitions);
  for (let d = 0; d < shape.dates; d++) {
    const requests: AppendRequest[] = [];
    const recordedMs = firstDay + (d + 1) * DAY + 60_000;
    plans.forEach((plan, p) => {
      const events = plan.get(d);
      if (events === undefined || events.length === 0) return;
      const stream = runStream(pipelineName(p), (events[0]?.data as { date: string }).date);
      requests.push({ stream, expectedVersion: 'any', events: events.map((e, i) => envelope(e, stream, recordedMs + i * 1000)) });
    });
    if (requests.length > 0) {
      const result = await store.append(requests);
      if (!result.ok) throw new Error('bench: unexpected conflict while building the ledger');
    }
  }
  return k;
}

const HOUR = 3_600_000;

/** The name of the bench's single hourly pipeline. */
export const HOURLY_PIPELINE = 'hourly_events';

/**
 * One hourly pipeline over `years` years ending now (about 230,000 events for ten), its runs in the
 * same shapes as `dateEvents` (successes, heartbeats, retries, clears, failures left), appended a day at
 * a time. This is the shape that made one pipeline's whole-state checkpoint 112 MB. Returns the events.
 */
export async function buildHourlyFixture(store: EventStore, years: number): Promise<number> {
  const slots = Math.round(years * 365.25 * 24);
  const first = BENCH_NOW - slots * HOUR;
  let k = 0;
  const envelope = (event: LedgerEvent, stream: string, recordedMs: number): NewEvent =>
    ({ ...event, eventId: `H${String(++k).padStart(25, '0')}`, stream, recordedAt: new Date(recordedMs).toISOString(), metadata: META }) as NewEvent;
  const definition: LedgerEvent = {
    type: 'PipelineDefined',
    schemaVersion: 1,
    data: { pipeline: HOURLY_PIPELINE, schedule: '@hourly', timetable: 'interval', timezone: 'UTC', start: instant(first), end: null, catchup: true, maxActiveRuns: 1, leaseMs: 3_600_000 },
  };
  await store.append([{ stream: HOURLY_PIPELINE, expectedVersion: 0, events: [envelope(definition, HOURLY_PIPELINE, first)] }]);
  for (let day = 0; day * 24 < slots; day++) {
    const requests: AppendRequest[] = [];
    for (let h = day * 24; h < Math.min(slots, (day + 1) * 24); h++) {
      const startMs = first + h * HOUR;
      const events = hourEvents(h, startMs);
      const stream = runStream(HOURLY_PIPELINE, instant(startMs));
      requests.push({ stream, expectedVersion: 'any', events: events.map((e, i) => envelope(e, stream, startMs + HOUR + 60_000 + i * 1000)) });
    }
    const result = await store.append(requests);
    if (!result.ok) throw new Error('bench: unexpected conflict while building the hourly ledger');
  }
  return k;
}

function hourEvents(h: number, startMs: number): LedgerEvent[] {
  const date = instant(startMs);
  const ref = { pipeline: HOURLY_PIPELINE, date };
  const interval = { start: date, end: instant(startMs + HOUR) };
  const out: LedgerEvent[] = [];
  let attempt = 0;
  const start = (): string => {
    attempt += 1;
    const runId = `H${h}-${attempt}`;
    out.push({
      type: 'RunStarted',
      schemaVersion: 1,
      data: { ...ref, runId, attempt, runType: 'scheduled', logicalDate: interval.start, dataInterval: interval, runAfter: interval.end, leaseExpiresAt: LEASE, force: attempt > 1, offSchedule: false, takeoverOf: null },
    });
    return runId;
  };
  const succeed = (runId: string) => out.push({ type: 'RunSucceeded', schemaVersion: 1, data: { ...ref, runId, metrics: { rows: 1000 + (h % 500), rejected: h % 7 }, outputs: [`gold/${HOURLY_PIPELINE}/${date}.parquet`] } });
  const fail = (runId: string) => out.push({ type: 'RunFailed', schemaVersion: 1, data: { ...ref, runId, error: 'upstream table not ready', code: 'exit 1' } });
  const roll = mix(7, h);
  if (roll < 80) succeed(start());
  else if (roll < 90) {
    const runId = start();
    out.push({ type: 'RunHeartbeat', schemaVersion: 1, data: { ...ref, runId, leaseExpiresAt: LEASE } });
    succeed(runId);
  } else if (roll < 99) {
    fail(start());
    succeed(start());
  } else fail(start());
  return out;
}

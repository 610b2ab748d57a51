// Property: on random DAGs of pipelines with random schedules and zones, the fleet runner never starts a
// date before every upstream slot it waits for has succeeded; a failure holds back only what waits for it;
// and once the failures are fixed, one more fleet run leaves nothing pending. In-process, on the memory store,
// with function tasks and a fixed clock, so a case takes a fraction of a second.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import type { Upstream } from '../../events/pipeline-definition.js';
import { MemoryEventStore } from '../../src/store/memory-event-store.js';
import { Ledger } from '../../src/ledger/ledger.js';
import { functionTask } from '../../src/runner/function-task.js';
import { runFleet } from '../../src/runner/run-fleet.js';
import type { Timetable } from '../../src/timetable/timetable.js';

const NOW = Date.parse('2026-11-03T12:00:00Z');
const SCHEDULES = ['@hourly', '@daily', '0 */6 * * *', 'every 4h', '0 12 * * *', '30 */3 * * *'];
const ZONES = ['UTC', 'Asia/Jakarta', 'America/New_York', 'Asia/Kolkata'];

type Spec = { schedule: string; zone: string; upstreams: Upstream[] };

/** Pipelines p0…pn, each naming only earlier ones as upstreams: a DAG by construction. */
const dag = fc.integer({ min: 2, max: 4 }).chain((n) =>
  fc.tuple(
    ...Array.from({ length: n }, (_, i) =>
      fc.record({
        schedule: fc.constantFrom(...SCHEDULES),
        zone: fc.constantFrom(...ZONES),
        upstreams: fc.uniqueArray(fc.record({ pipeline: fc.integer({ min: 0, max: Math.max(0, i - 1) }).map((j) => `p${j}`), mapping: fc.constantFrom('overlap' as const, 'previous' as const) }), {
          maxLength: i === 0 ? 0 : 2,
          selector: (u) => `${u.pipeline}:${u.mapping}`,
        }),
      }),
    ),
  ),
);

/** The oracle's own mapping, by plain interval arithmetic over the upstream's slots (not the code under test). */
function waitedFor(upstream: Timetable, mapping: Upstream['mapping'], start: number, end: number): string[] {
  const all = [...upstream.slotsBetween(start - 3 * 86_400_000, end)].map((s) => ({ date: s.date, s: Date.parse(s.dataInterval.start), e: Date.parse(s.dataInterval.end) }));
  const overlapping = all.filter((u) => u.s < end && start < u.e);
  if (mapping === 'overlap') return overlapping.map((u) => u.date);
  const first = overlapping[0];
  const before = first ? all.filter((u) => u.s < first.s).at(-1) : all.filter((u) => u.e <= start).at(-1);
  return before ? [before.date] : [];
}

/**
 * Walks the whole log keeping every date's status: at each start, all it waits for must be success.
 * Then every date still pending must have failed itself (while `failuresAllowed`) or wait for an
 * upstream date that is not done (one that failed, or is not due yet).
 */
async function checkRun(ledger: Ledger, specs: Spec[], timetables: Map<string, Timetable>, failuresAllowed: boolean): Promise<void> {
  const status = new Map<string, string>();
  const key = (p: string, d: string) => `${p} ${d}`;
  const waits = (pipeline: string, interval: { start: string; end: string }) => {
    const spec = specs[Number(pipeline.slice(1))] as Spec;
    const start = Date.parse(interval.start);
    const end = Date.parse(interval.end);
    return spec.upstreams.flatMap((up) => waitedFor(timetables.get(up.pipeline) as Timetable, up.mapping, start, end).map((d) => key(up.pipeline, d)));
  };
  const { events } = await ledger.log();
  for (const e of events) {
    if (e.type === 'RunStarted') {
      for (const w of waits(e.data.pipeline, e.data.dataInterval)) expect(status.get(w), `${e.data.pipeline} ${e.data.date} started while ${w} was not done`).toBe('success');
      status.set(key(e.data.pipeline, e.data.date), 'running');
    }
    if (e.type === 'RunSucceeded') status.set(key(e.data.pipeline, e.data.date), 'success');
    if (e.type === 'RunFailed') status.set(key(e.data.pipeline, e.data.date), 'failed');
  }
  for (const i of specs.keys()) {
    const { pending } = await ledger.pending({ pipeline: `p${i}` });
    for (const slot of pending) {
      if (failuresAllowed && slot.reason === 'failed') continue;
      expect(waits(`p${i}`, slot.dataInterval).some((w) => status.get(w) !== 'success'), `p${i} ${slot.date} (${slot.reason}) left pending without an upstream date not done`).toBe(true);
    }
  }
}

describe('the fleet runner on random DAGs', () => {
  test('no date ever starts before its upstream slots succeeded, and a failure holds back only what waits for it', async () => {
    await fc.assert(
      fc.asyncProperty(dag, fc.integer({ min: 0, max: 2 ** 30 }), fc.integer({ min: 1, max: 4 }), async (specs: Spec[], seed, parallel) => {
        const ledger = new Ledger(new MemoryEventStore(), () => NOW, 'property');
        const timetables = new Map<string, Timetable>();
        for (const [i, spec] of specs.entries()) {
          const name = `p${i}`;
          await ledger.define({ pipeline: name, schedule: spec.schedule, start: '2026-11-01', timezone: spec.zone, maxActiveRuns: 1 + (seed % 3), ...(spec.upstreams.length ? { upstreams: spec.upstreams } : {}) });
          timetables.set(name, (await ledger.pipeline(name)).timetable);
        }
        // About one date in nine fails, chosen by the seed.
        const fails = (pipeline: string, date: string) => [...`${seed}${pipeline}${date}`].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7) % 9 === 0;
        let failing = true;
        const task = functionTask(async (run) => {
          if (failing && fails(run.pipeline, run.date)) throw new Error('boom');
          return { rows: 1 };
        });
        const first = await runFleet(ledger, { kind: 'catchup' }, { taskFor: () => task, parallel, heartbeat: 60_000 });
        expect(first.pipelines.every((p) => p.runs.every((r) => r.status !== 'unrecorded'))).toBe(true);

        await checkRun(ledger, specs, timetables, true);

        // With the failures fixed, one more fleet run brings back every date whose upstream dates are due.
        failing = false;
        const second = await runFleet(ledger, { kind: 'catchup' }, { taskFor: () => task, parallel, heartbeat: 60_000 });
        expect(second.failed).toBe(0);
        await checkRun(ledger, specs, timetables, false);
      }),
      { numRuns: 12 },
    );
  }, 240_000);
});


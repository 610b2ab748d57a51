import type { LedgerEvent } from '../../events/ledger-event.js';
import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import { runStream } from '../../events/recorded-event.js';
import { decideClear } from '../../projections/decide-clear.js';
import { directDownstreams } from '../../projections/dependency-graph.js';
import type { PipelineState } from '../../projections/pipeline-state.js';
import type { Slot } from '../../projections/slot.js';
import { dependentSlots } from '../../projections/upstream-slots.js';
import type { Timetable } from '../timetable/timetable.js';
import { handleCommand } from './handle-command.js';
import type { LedgerCore } from './ledger-core.js';
import type { ClearInput, ClearResult, DownstreamClear } from './ledger-types.js';
import { listPipelines, readPipeline } from './load-pipeline.js';
import { keysFor } from './resolve-keys.js';

type Request = { stream: string; expectedVersion: number; events: Array<LedgerEvent & { eventId?: string }> };
type Loaded = { timetable: Timetable; state: PipelineState };

/**
 * `clear <pipeline> <dates> --downstream`: clears the dates, then every date of every downstream pipeline
 * that waits for a cleared date (through its upstream mapping), transitively, all in one append, so the
 * ledger never shows a report cleared without its source or the other way round. Each downstream
 * `RunCleared` names its cause: the clear of the date the user named (its event id, pipeline and date),
 * whose actor and reason it shares. Dates that never ran or are already cleared are passed through (their
 * own downstream dates are still cleared) but get no event.
 *
 * @example
 * await clearWithDownstream(core, { pipeline: 'orders_raw', dates: ['2026-11-03T05:00:00+07:00'], reason: 'bad file', downstream: true });
 */
export async function clearWithDownstream(core: LedgerCore, input: ClearInput): Promise<ClearResult> {
  return handleCommand<ClearResult>(core, async () => {
    const definitions = await listPipelines(core);
    const graph = new Map(definitions.map((d: PipelineDefinition) => [d.pipeline, d.upstreams ?? []]));
    const loaded = new Map<string, Loaded>();
    const load = async (name: string): Promise<Loaded> => {
      const known = loaded.get(name);
      if (known) return known;
      const { timetable, state } = await readPipeline(core, name);
      const entry = { timetable, state };
      loaded.set(name, entry);
      return entry;
    };
    const root = await load(input.pipeline);
    const keys = keysFor(root.timetable, root.state, input, core.clock);
    const decision = decideClear(root.state, { dates: keys, onlyFailed: input.onlyFailed ?? false });
    const requests: Request[] = [];
    const downstream: DownstreamClear[] = [];
    // Breadth first from each cleared date, remembering every (pipeline, date) reached so a diamond clears once.
    const reached = new Set<string>(decision.cleared.map((c) => `${input.pipeline}\u0000${c.date}`));
    const frontier: Array<{ pipeline: string; slot: Slot; cause: { eventId: string; pipeline: string; date: string } }> = [];
    for (const event of decision.events) {
      const eventId = core.newId();
      requests.push({ stream: runStream(input.pipeline, event.data.date), expectedVersion: root.state.dates.get(event.data.date)?.version ?? 0, events: [{ ...event, eventId }] });
      const date = root.state.dates.get(event.data.date);
      if (date) frontier.push({ pipeline: input.pipeline, slot: date, cause: { eventId, pipeline: input.pipeline, date: event.data.date } });
    }
    while (frontier.length > 0) {
      const { pipeline, slot, cause } = frontier.shift() as (typeof frontier)[number];
      const upstream = await load(pipeline);
      for (const down of directDownstreams(graph, pipeline)) {
        const target = await load(down.pipeline);
        for (const dependent of dependentSlots(down.mapping, slot, upstream.timetable, target.timetable)) {
          const key = `${down.pipeline}\u0000${dependent.date}`;
          if (reached.has(key)) continue;
          reached.add(key);
          frontier.push({ pipeline: down.pipeline, slot: target.state.dates.get(dependent.date) ?? dependent, cause });
          const [event] = decideClear(target.state, { dates: [dependent.date], onlyFailed: false }).events;
          if (!event) continue;
          const caused = { ...event, data: { ...event.data, cause } };
          requests.push({ stream: runStream(down.pipeline, dependent.date), expectedVersion: target.state.dates.get(dependent.date)?.version ?? 0, events: [caused] });
          downstream.push({ pipeline: down.pipeline, date: dependent.date, runId: event.data.runId, previousStatus: event.data.previousStatus, cause: { pipeline: cause.pipeline, date: cause.date } });
        }
      }
    }
    const result: ClearResult = { pipeline: input.pipeline, dryRun: input.dryRun ?? false, cleared: decision.cleared, skipped: decision.skipped, downstream };
    const label = `${input.pipeline} and its downstream pipelines`;
    return input.dryRun ? { result, label } : { result, requests, reason: input.reason, label };
  });
}

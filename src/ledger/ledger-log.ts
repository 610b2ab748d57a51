import type { RecordedEvent } from '../../events/recorded-event.js';
import { LedgerError } from '../errors.js';
import type { LedgerCore } from './ledger-core.js';
import type { LogInput } from './ledger-types.js';
import { definedPipeline, loadPipeline, positionFor } from './load-pipeline.js';
import { keyOf } from './resolve-keys.js';
import { readModelsFor, tableView, withDates } from './read-model-views.js';

/**
 * Events, oldest first, filtered as `Ledger.log` describes, in batches: without `limit` a listing of a
 * million events never sits in memory at once; with it, memory follows the limit.
 *
 * @example
 * for await (const batch of logEventBatches(core, { pipeline: 'etl_orders' })) print(batch);
 */
export async function* logEventBatches(core: LedgerCore, input: LogInput = {}): AsyncIterable<RecordedEvent[]> {
  let key = input.date;
  if (input.pipeline !== undefined) {
    const models = await readModelsFor(core, undefined);
    if (models !== null) {
      // The summary row (is it defined, its timetable) and the one date row a key text may name.
      const view = await tableView(models, input.pipeline);
      if (input.date !== undefined) key = keyOf(view.timetable, input.date, withDates(view, await models.dates(input.pipeline, { keys: [input.date], light: true })).state);
    } else {
      const { state } = await loadPipeline(core, input.pipeline);
      const { timetable } = definedPipeline(state);
      if (input.date !== undefined) key = keyOf(timetable, input.date, state);
    }
  }
  if (input.runId !== undefined && !(await core.store.findRun(input.runId))) {
    throw new LedgerError('notFound.run', `no run ${input.runId} in this ledger; list runs with \`runledger runs <pipeline>\``);
  }
  const toPosition = await positionFor(core, input.asOf);
  const since = input.since === undefined ? -Infinity : Date.parse(input.since);
  const until = input.until === undefined ? Infinity : Date.parse(input.until);
  const types = input.types === undefined ? undefined : new Set<string>(input.types);
  const matches = (e: RecordedEvent): boolean => {
    if (types && !types.has(e.type)) return false;
    if (input.actor !== undefined && e.metadata.actor !== input.actor) return false;
    if (key !== undefined && (!('date' in e.data) || e.data.date !== key)) return false;
    const at = Date.parse(e.recordedAt);
    return at >= since && at <= until;
  };
  // The types go to the store too: SQLite and PostgreSQL read only those rows (by index order, with `--limit` from the newest back).
  const filter = {
    ...(input.pipeline === undefined ? {} : { pipeline: input.pipeline }),
    ...(input.runId === undefined ? {} : { runId: input.runId }),
    ...(input.types === undefined ? {} : { types: input.types }),
    ...(toPosition === undefined ? {} : { toPosition }),
  };
  if (input.limit === undefined) {
    for await (const batch of core.store.read(filter)) {
      const matching = batch.filter(matches);
      if (matching.length > 0) yield matching;
    }
    return;
  }
  if (core.store.readBackward !== undefined) {
    // From the newest back by index, until `limit` match: the last n events cost about n rows.
    const last: RecordedEvent[] = [];
    if (input.limit > 0) {
      const batchSize = Math.min(1000, Math.max(16, input.limit));
      outer: for await (const batch of core.store.readBackward({ ...filter, batchSize })) {
        for (const event of batch) {
          if (!matches(event)) continue;
          last.push(event);
          if (last.length >= input.limit) break outer;
        }
      }
    }
    if (last.length > 0) yield last.reverse();
    return;
  }
  let events: RecordedEvent[] = [];
  for await (const batch of core.store.read(filter)) {
    for (const event of batch) if (matches(event)) events.push(event);
    // With a limit, memory follows the limit, not the log.
    if (events.length > 2 * input.limit + 1000) events = events.slice(-input.limit);
  }
  const last = input.limit === 0 ? [] : events.slice(-input.limit);
  if (last.length > 0) yield last;
}

import type { RecordedEvent } from '../../events/recorded-event.js';
import { noRows, rowFolder, touchedKeys, type FoldedRows, type RowFolder, type TouchedRows } from './read-model-fold.js';

/**
 * How many date and run rows a rebuild holds in memory before it writes them out: about 90 MB of folded
 * state. A ledger whose rows fit is folded in one pass and every row is written once; a bigger one is
 * written out each time this many are held, and a later event of a row already written loads it back
 * (as an append does), so memory stays bounded whatever the ledger's size.
 */
export const REBUILD_HELD_ROWS = 100_000;

/** One pipeline's events of a batch, and the stored rows to load before they are folded (null: none are stored). */
export type RebuildGroup = { pipeline: string; events: RecordedEvent[]; load: { dates: Set<string>; runs: Set<string>; summary: boolean } | null };

/** The rows of one pipeline to write; `fresh` when none of its rows were written before (its complete-through is walked from the first slot over the folded dates alone). */
export type RebuildFlush = { folded: FoldedRows; fresh: boolean };

/**
 * The store-independent part of `rebuild`: every event is read once, in position order (a sequential
 * scan, where reading each pipeline's events through the index cost twice the scan), folded per pipeline
 * with the table writer's own fold (`rowFolder`: the pure `evolve` and `evolveRunHistory`), and each
 * pipeline's rows are handed out once, at the end or when `heldRows` are held. The adapter reads the
 * batches, loads what `groups` asks for, and writes what `flush` gives.
 *
 * @example
 * const fold = new RebuildFold();
 * for (const batch of batches) {
 *   for (const group of fold.groups(batch)) fold.add(group, group.load && loadRows(group.pipeline, group.load));
 *   if (fold.full) for (const rows of fold.flush()) write(rows);
 * }
 * for (const rows of fold.flush()) write(rows);
 */
export class RebuildFold {
  readonly #folders = new Map<string, RowFolder>();
  /** Pipelines with rows in the tables already: their later events load the rows they touch. */
  readonly #written = new Set<string>();
  /** The bound on the date and run rows held before they are written out. */
  readonly heldRows: number;
  #held = 0;

  constructor(heldRows = REBUILD_HELD_ROWS) {
    this.heldRows = Math.max(1, heldRows);
  }

  /** The batch's events by pipeline, in position order within each, with what to load for each first. */
  groups(events: readonly RecordedEvent[]): RebuildGroup[] {
    const byPipeline = new Map<string, RecordedEvent[]>();
    for (const event of events) {
      const list = byPipeline.get(event.data.pipeline);
      if (list) list.push(event);
      else byPipeline.set(event.data.pipeline, [event]);
    }
    const groups: RebuildGroup[] = [];
    for (const [pipeline, list] of byPipeline) {
      let load: RebuildGroup['load'] = null;
      if (this.#written.has(pipeline)) {
        const folder = this.#folders.get(pipeline);
        load = folder === undefined ? { ...touchedKeys(list), summary: true } : { ...folder.missing(list), summary: false };
      }
      groups.push({ pipeline, events: list, load });
    }
    return groups;
  }

  /** Folds one group's events, after the rows its `load` named (`loaded`; null when it asked for none). */
  add(group: RebuildGroup, loaded: TouchedRows | null): void {
    let folder = this.#folders.get(group.pipeline);
    const before = folder?.size() ?? 0;
    if (folder === undefined) {
      folder = rowFolder(group.pipeline, loaded ?? noRows());
      this.#folders.set(group.pipeline, folder);
    } else if (loaded !== null) {
      folder.touch(loaded);
    }
    folder.add(group.events);
    this.#held += folder.size() - before;
  }

  /** True when the rows held have reached the bound: write them (`flush`) before the next batch. */
  get full(): boolean {
    return this.#held >= this.heldRows;
  }

  /** Every held pipeline's rows, each once; the fold then holds nothing. */
  *flush(): Iterable<RebuildFlush> {
    for (const [pipeline, folder] of this.#folders) {
      yield { folded: folder.finish(), fresh: !this.#written.has(pipeline) };
      this.#written.add(pipeline);
    }
    this.#folders.clear();
    this.#held = 0;
  }
}

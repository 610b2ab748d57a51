import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import type { PlannedSlot } from '../../projections/plan-runs.js';
import { firstBlocking, waitsFor } from '../../projections/upstream-slots.js';
import { formatLag } from '../../projections/views/format-lag.js';
import { waitsForText } from '../../projections/views/cleared-because.js';
import type { Ledger } from '../ledger/ledger.js';
import { loadUpstreams } from '../ledger/load-upstreams.js';
import { watchAppends } from '../ledger/watch-appends.js';

export type UpstreamGateOptions = {
  /** The pipeline whose slots are gated (its upstreams are read from it). */
  definition: PipelineDefinition;
  /**
   * An upstream slot this same process is still working on (a fleet run), to wait for before looking at
   * the ledger; undefined when it is not one of them.
   */
  inProgress?: (pipeline: string, date: string) => Promise<void> | undefined;
  /** How long to wait for upstream slots that are not done (`--wait-upstream`); 0 or undefined: do not wait. */
  waitMs?: number;
  /** How often to look again while waiting when nothing is appended (default 1 s); any append looks at once. */
  pollMs?: number;
};

/**
 * The runner's gate for a pipeline with upstreams: a slot runs only once every upstream slot it waits for
 * is `success` (or `skipped`), read from the ledger right before the claim. Otherwise it is skipped with
 * one line naming what it waits for, or, with `waitMs`, waited for (woken by each append) until then.
 *
 * @example
 * const gate = upstreamGate(ledger, { definition, waitMs: 600_000 });
 * await gate(slot) // null: run it; or 'waits for orders_raw 2026-11-03T05:00:00+07:00 (failed)'
 */
export function upstreamGate(ledger: Ledger, options: UpstreamGateOptions): (slot: PlannedSlot, signal?: AbortSignal) => Promise<string | null> {
  const read = (name: string) => ledger.pipeline(name);
  return async (slot, signal) => {
    if (options.inProgress) {
      for (const wait of waitsFor(slot.dataInterval, await loadUpstreams(options.definition, read))) await options.inProgress(wait.pipeline, wait.slot.date);
    }
    const waitMs = options.waitMs ?? 0;
    const deadline = performance.now() + waitMs;
    for (;;) {
      const by = firstBlocking(slot.dataInterval, await loadUpstreams(options.definition, read));
      if (by === null) return null;
      const left = deadline - performance.now();
      if (waitMs <= 0) return `left alone: ${waitsForText(by)}; --wait-upstream waits for it`;
      if (left <= 0 || signal?.aborted) return `not started: still ${waitsForText(by)} after waiting ${formatLag(waitMs)}`;
      await nextAppend(ledger, Math.min(left, options.pollMs ?? 1000), signal);
    }
  };
}

/** Resolves at the ledger's next append, after `ms`, or when `signal` aborts, whichever comes first. */
async function nextAppend(ledger: Ledger, ms: number, signal?: AbortSignal): Promise<void> {
  let wake = () => {};
  const woken = new Promise<void>((resolve) => {
    wake = resolve;
  });
  const timer = setTimeout(wake, ms);
  signal?.addEventListener('abort', wake, { once: true });
  const stop = await watchAppends(ledger.store, wake, { intervalMs: Math.min(250, ms) });
  try {
    await woken;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', wake);
    await stop();
  }
}

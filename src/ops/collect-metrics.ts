import { PENDING_REASONS } from '../../projections/pending.js';
import { Counter, Gauge, Registry, type Metric } from 'prom-client';
import type { RunOutcome } from '../../projections/views/run-outcome.js';
import { DURATION_BUCKETS, type RunTally } from '../../projections/views/run-tally.js';
import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import type { Ledger } from '../ledger/ledger.js';
import { statusViewOfTable, type PipelineStatusView } from '../ledger/ledger-queries.js';
import { viewOfSummary } from '../ledger/read-model-views.js';
import { toolVersion } from '../runtime.js';
import type { VerifyResult } from './chain-verifier.js';

const OUTCOMES: RunOutcome[] = ['success', 'failed', 'interrupted', 'abandoned', 'cleared'];
const REASONS = PENDING_REASONS;

/** A pipeline as one scrape reads it: its definition, and its status and runs by outcome. */
type ScrapeRow = { pipeline: string; definition: PipelineDefinition; view: PipelineStatusView };

/** What one scrape reads: the ledger at `nowMs`, and the last chain verification (none yet: null). */
export type MetricsInput = { nowMs: number; verify: VerifyResult | null };

/**
 * The ledger as Prometheus metrics (text format 0.0.4), every number read
 * from the ledger at `nowMs`: per pipeline the watermark and complete-through
 * (logical dates as Unix timestamps), lag, pending by reason, running,
 * stalled, runs by outcome and their durations, when the last success and the
 * last failure were recorded, and the definition as an info metric; the
 * ledger's head position, the last chain verification and the build.
 *
 * Counters and the histogram are cumulative over the whole ledger (every run
 * ever recorded), so they only grow and `rate()` works across restarts.
 *
 * @example
 * const { text, contentType } = await collectMetrics(ledger, { nowMs: Date.now(), verify: await verifier.check() });
 */
export async function collectMetrics(ledger: Ledger, options: MetricsInput): Promise<{ text: string; contentType: string }> {
  return metricsCollector().collect(ledger, options);
}

/**
 * A collector that keeps its registry and metrics from one scrape to the next (`serve` has one): each
 * scrape resets their values and sets them afresh, as a registry of its own would print them, without
 * building a registry and twenty metrics each time. Scrapes of one collector run one after another (a
 * second waits for the first), so two never set the same metrics at once.
 *
 * @example
 * const metrics = metricsCollector();
 * const { text } = await metrics.collect(ledger, { nowMs: Date.now(), verify: null });
 */
export function metricsCollector(): {
  collect(ledger: Ledger, options: MetricsInput): Promise<{ text: string; contentType: string }>;
  collectBytes(ledger: Ledger, options: MetricsInput): Promise<{ chunks: Uint8Array[]; contentType: string }>;
} {
  const registry = new Registry();
  const registers = [registry];
  const gauge = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name, help, labelNames, registers });
  const watermark = gauge('runledger_pipeline_watermark_timestamp_seconds', 'Logical date of the highest date key that ever succeeded (never goes down), as a Unix timestamp; absent before any success.', ['pipeline']);
  const completeThrough = gauge('runledger_pipeline_complete_through_timestamp_seconds', 'Logical date of the last date key up to which every date is a success, as a Unix timestamp; absent when none is.', ['pipeline']);
  const completeUntil = gauge('runledger_pipeline_complete_until_timestamp_seconds', "End of the complete-through date's data interval: the data is complete up to this instant.", ['pipeline']);
  const lag = gauge('runledger_pipeline_lag_seconds', "Now minus the end of the complete-through date's data interval (from the first slot's start when nothing is complete); absent before any slot is due.", ['pipeline']);
  const freshness = gauge('runledger_pipeline_freshness_seconds', 'The lag the pipeline may reach (define --freshness); absent when none is set.', ['pipeline']);
  const pending = gauge('runledger_pipeline_pending', 'Due dates not done, by reason.', ['pipeline', 'reason']);
  const running = gauge('runledger_pipeline_running', 'Runs in flight with a live lease.', ['pipeline']);
  const stalled = gauge('runledger_pipeline_stalled', 'Runs still running whose lease expired.', ['pipeline']);
  const behind = gauge('runledger_pipeline_dates_behind', 'Due dates after the complete-through date.', ['pipeline']);
  const runs = new Counter({ name: 'runledger_runs_total', help: 'Finished runs by outcome (a later clear does not change how a run ended).', labelNames: ['pipeline', 'outcome'], registers });
  const durations: Array<{ pipeline: string; tally: RunTally }> = [];
  const duration = tallyHistogram('runledger_run_duration_seconds', 'Duration of finished runs, from start to success, failure or abandonment.', durations);
  registry.registerMetric(duration);
  const lastSuccess = gauge('runledger_last_success_timestamp_seconds', 'When the run that succeeded last recorded its success, as a Unix timestamp (a later clear of its date does not change it); absent before any success.', ['pipeline']);
  const lastFailure = gauge('runledger_last_failure_timestamp_seconds', 'When the run that failed (or was abandoned) last recorded its failure, as a Unix timestamp (a later retry does not change it); absent before any failure.', ['pipeline']);
  const info = gauge('runledger_pipeline_info', "A pipeline's definition as labels, always 1: its schedule, zone, timetable and the OpenLineage job bound to it (namespace/name, empty when none).", ['pipeline', 'schedule', 'timezone', 'timetable', 'openlineage_job']);
  const build = gauge('runledger_build_info', 'The runledger version and Node.js version that answer, always 1.', ['version', 'node_version']);
  const head = gauge('runledger_ledger_head_position', 'Position of the last event in the ledger.');
  const consumerPosition = gauge('runledger_consumer_position', 'The last position a durable consumer (follow --consumer) acknowledged.', ['consumer']);
  const consumerBehind = gauge('runledger_consumer_behind_events', 'Events between the head and what a durable consumer acknowledged.', ['consumer']);
  const verifyOk = gauge('runledger_ledger_verify_ok', '1 when the last verification found the hash chain intact, 0 when it found it broken.');
  const verifyPosition = gauge('runledger_ledger_verified_position', 'The last position the last verification checked out.');
  const verifyTime = gauge('runledger_ledger_verify_timestamp_seconds', 'When the last verification ran, as a Unix timestamp.');

  // `print` gets the text a metric at a time, as prom-client's registry prints each (the whole text is their join).
  const collect = async (ledger: Ledger, options: MetricsInput, print: (text: string) => void): Promise<string> => {
    // Every metric as a new one starts (a metric without labels at 0), so the text is what a fresh registry prints.
    registry.resetMetrics();
    durations.length = 0;
    const ledgerHead = await ledger.store.head();
    const definitions = await ledger.pipelines();
    const statusOf = await statusReader(ledger, options.nowMs);
    // The status and the runs by outcome of each pipeline from its summary row (no run and no event is read).
    const rows: ScrapeRow[] = [];
    for (const definition of definitions) rows.push({ pipeline: definition.pipeline, definition, view: await statusOf(definition.pipeline) });
    const each = (fill: (row: ScrapeRow) => void) => () => {
      for (const row of rows) fill(row);
    };
    // Each metric is set, printed and reset before the next one is set: the values of all of them at once (30,000
    // label sets for 1,000 pipelines), held from the first set to the print, went to the old generation at each scrape.
    // A metric's values go in in the pipelines' order, as when every metric was set pipeline by pipeline.
    const fills = new Map<unknown, () => void>([
      [watermark, each(({ pipeline, view }) => view.watermarkLogicalDate !== null && watermark.set({ pipeline }, Date.parse(view.watermarkLogicalDate) / 1000))],
      [completeThrough, each(({ pipeline, view }) => view.completeThroughLogicalDate !== null && completeThrough.set({ pipeline }, Date.parse(view.completeThroughLogicalDate) / 1000))],
      [completeUntil, each(({ pipeline, view: { status } }) => status.completeUntil !== null && completeUntil.set({ pipeline }, Date.parse(status.completeUntil) / 1000))],
      [lag, each(({ pipeline, view: { status } }) => status.lagSeconds !== null && lag.set({ pipeline }, status.lagSeconds))],
      [freshness, each(({ pipeline, view: { status } }) => status.freshnessSeconds !== null && freshness.set({ pipeline }, status.freshnessSeconds))],
      [pending, each(({ pipeline, view: { status } }) => REASONS.forEach((reason) => pending.set({ pipeline, reason }, status.pending[reason])))],
      [running, each(({ pipeline, view: { status } }) => running.set({ pipeline }, status.inFlight.length))],
      [stalled, each(({ pipeline, view: { status } }) => stalled.set({ pipeline }, status.stalled.length))],
      [behind, each(({ pipeline, view: { status } }) => behind.set({ pipeline }, status.behind))],
      // Every outcome is present from zero, so `increase()` sees the first failure.
      [runs, each(({ pipeline, view: { runTally } }) => OUTCOMES.forEach((outcome) => runs.inc({ pipeline, outcome }, runTally[outcome]?.runs ?? 0)))],
      [duration, each(({ pipeline, view: { runTally } }) => durations.push({ pipeline, tally: runTally }))],
      [lastSuccess, each(({ pipeline, view: { status } }) => status.lastSuccess && lastSuccess.set({ pipeline }, Date.parse(status.lastSuccess.at) / 1000))],
      [lastFailure, each(({ pipeline, view: { status } }) => status.lastFailure && lastFailure.set({ pipeline }, Date.parse(status.lastFailure.at) / 1000))],
      [
        info,
        each(({ pipeline, definition: d }) =>
          info.set({ pipeline, schedule: d.schedule, timezone: d.timezone, timetable: d.timetable, openlineage_job: d.openlineage ? `${d.openlineage.namespace}/${d.openlineage.job}` : '' }, 1),
        ),
      ],
      [build, () => build.set({ version: toolVersion, node_version: process.version }, 1)],
      [head, () => head.set(ledgerHead.position)],
    ]);
    const consumers = await ledger.store.consumers.list();
    fills.set(consumerPosition, () => consumers.forEach((consumer) => consumerPosition.set({ consumer: consumer.name }, consumer.position)));
    fills.set(consumerBehind, () => consumers.forEach((consumer) => consumerBehind.set({ consumer: consumer.name }, Math.max(0, ledgerHead.position - consumer.position))));
    const verify = options.verify;
    if (verify) {
      fills.set(verifyOk, () => verifyOk.set(verify.ok ? 1 : 0));
      fills.set(verifyPosition, () => verifyPosition.set(verify.head.position));
      fills.set(verifyTime, () => verifyTime.set(verify.atMs / 1000));
    }
    // What `registry.metrics()` returns (each metric's text, a blank line between them, a newline at the end), handed
    // on one metric at a time: its one string of the whole text (4.7 MB for 1,000 pipelines), with every metric's text
    // held until the join, outlived several collections of the young generation and went to the old one at each scrape.
    const names = registry.getMetricsAsArray().map((metric) => metric.name);
    for (const [i, name] of names.entries()) {
      const metric = registry.getSingleMetric(name);
      fills.get(metric)?.();
      print(`${i === 0 ? '' : '\n\n'}${await registry.getSingleMetricAsString(name)}`);
      // Nothing of this scrape is held until the next one.
      metric?.reset();
    }
    print('\n');
    durations.length = 0;
    return registry.contentType;
  };
  // Scrapes one after another; the queue holds when the last one ends, never its answer.
  let queue: Promise<unknown> = Promise.resolve();
  const queued = <T>(scrape: () => Promise<T>): Promise<T> => {
    const next = queue.then(scrape);
    queue = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  };
  return {
    collect(ledger, options) {
      return queued(async () => {
        const parts: string[] = [];
        const contentType = await collect(ledger, options, (text) => parts.push(text));
        return { text: parts.join(''), contentType };
      });
    },
    collectBytes(ledger, options) {
      return queued(async () => {
        const chunks: Uint8Array[] = [];
        const contentType = await collect(ledger, options, (text) => chunks.push(Buffer.from(text, 'utf8')));
        return { chunks, contentType };
      });
    },
  };
}

/**
 * Each pipeline's status view at `nowMs`, as `ledger.pipelineStatus` gives it. With read models, every
 * summary row is read in one statement first (a scrape of 1,000 pipelines read each one's row twice); a
 * pipeline with upstreams, whose blocking rule reads its upstreams' dates, is still read alone.
 */
async function statusReader(ledger: Ledger, nowMs: number): Promise<(pipeline: string) => Promise<PipelineStatusView>> {
  const alone = (pipeline: string) => ledger.pipelineStatus({ pipeline, nowMs });
  const models = ledger.store.readModels;
  if (models === undefined || !(await models.ensure())) return alone;
  const summaries = new Map((await models.summaries()).map((summary) => [summary.pipeline, summary]));
  return async (pipeline) => {
    const summary = summaries.get(pipeline);
    if (summary === undefined || summary.definition === null || summary.definition.upstreams) return alone(pipeline);
    return statusViewOfTable(models, viewOfSummary(models, pipeline, summary), nowMs);
  };
}

/**
 * The run duration histogram from the pipelines' run tallies (bucket counts kept in the summary rows),
 * as prom-client's registry prints a histogram: per pipeline and outcome with a timed run, the
 * cumulative buckets, `+Inf`, the sum in seconds and the count. prom-client's Histogram only takes
 * observations one by one, so this is the metric object its registry reads (`get`).
 */
function tallyHistogram(name: string, help: string, pipelines: ReadonlyArray<{ pipeline: string; tally: RunTally }>): Metric {
  // The values one at a time, as the registry prints them (it walks them with for…of): 1,000 pipelines have 36,000,
  // which built as one array, each with its labels, outlived young-generation collections while they were printed.
  function* values(): Generator<{ labels: Record<string, string | number>; value: number; metricName: string }> {
    for (const { pipeline, tally } of pipelines) {
      for (const outcome of OUTCOMES) {
        const entry = tally[outcome];
        if (entry === undefined || entry.timed === 0) continue;
        const labels = { pipeline, outcome };
        for (const [i, le] of DURATION_BUCKETS.entries()) yield { labels: { ...labels, le }, value: entry.le[i] ?? 0, metricName: `${name}_bucket` };
        yield { labels: { ...labels, le: '+Inf' }, value: entry.timed, metricName: `${name}_bucket` };
        yield { labels, value: entry.ms / 1000, metricName: `${name}_sum` };
        yield { labels, value: entry.timed, metricName: `${name}_count` };
      }
    }
  }
  const get = async () => ({ name, help, type: 'histogram', values: values(), aggregator: 'sum' });
  return { name, help, get, reset: () => undefined } as unknown as Metric;
}

import { PENDING_REASONS } from '../../projections/pending.js';
import { Counter, Gauge, Registry, type Metric } from 'prom-client';
import type { RunOutcome } from '../../projections/views/run-outcome.js';
import { DURATION_BUCKETS, type RunTally } from '../../projections/views/run-tally.js';
import type { Ledger } from '../ledger/ledger.js';
import { statusViewOfTable, type PipelineStatusView } from '../ledger/ledger-queries.js';
import { viewOfSummary } from '../ledger/read-model-views.js';
import { toolVersion } from '../runtime.js';
import type { VerifyResult } from './chain-verifier.js';

const OUTCOMES: RunOutcome[] = ['success', 'failed', 'interrupted', 'abandoned', 'cleared'];
const REASONS = PENDING_REASONS;

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
  collectBytes(ledger: Ledger, options: MetricsInput): Promise<{ chunks: Buffer[]; contentType: string }>;
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
  registry.registerMetric(tallyHistogram('runledger_run_duration_seconds', 'Duration of finished runs, from start to success, failure or abandonment.', durations));
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
    for (const definition of definitions) {
      const name = definition.pipeline;
      // The status and the runs by outcome from the summary row (no run and no event is read).
      const { status, watermarkLogicalDate, completeThroughLogicalDate, runTally } = await statusOf(name);
      const labels = { pipeline: name };
      info.set({ pipeline: name, schedule: definition.schedule, timezone: definition.timezone, timetable: definition.timetable, openlineage_job: definition.openlineage ? `${definition.openlineage.namespace}/${definition.openlineage.job}` : '' }, 1);
      if (status.lastSuccess) lastSuccess.set(labels, Date.parse(status.lastSuccess.at) / 1000);
      if (status.lastFailure) lastFailure.set(labels, Date.parse(status.lastFailure.at) / 1000);
      if (watermarkLogicalDate !== null) watermark.set(labels, Date.parse(watermarkLogicalDate) / 1000);
      if (completeThroughLogicalDate !== null) completeThrough.set(labels, Date.parse(completeThroughLogicalDate) / 1000);
      if (status.completeUntil !== null) completeUntil.set(labels, Date.parse(status.completeUntil) / 1000);
      if (status.lagSeconds !== null) lag.set(labels, status.lagSeconds);
      if (status.freshnessSeconds !== null) freshness.set(labels, status.freshnessSeconds);
      for (const reason of REASONS) pending.set({ pipeline: name, reason }, status.pending[reason]);
      running.set(labels, status.inFlight.length);
      stalled.set(labels, status.stalled.length);
      behind.set(labels, status.behind);
      // Every outcome is present from zero, so `increase()` sees the first failure.
      for (const outcome of OUTCOMES) runs.inc({ pipeline: name, outcome }, runTally[outcome]?.runs ?? 0);
      durations.push({ pipeline: name, tally: runTally });
    }
    build.set({ version: toolVersion, node_version: process.version }, 1);
    head.set(ledgerHead.position);
    for (const consumer of await ledger.store.consumers.list()) {
      consumerPosition.set({ consumer: consumer.name }, consumer.position);
      consumerBehind.set({ consumer: consumer.name }, Math.max(0, ledgerHead.position - consumer.position));
    }
    if (options.verify) {
      verifyOk.set(options.verify.ok ? 1 : 0);
      verifyPosition.set(options.verify.head.position);
      verifyTime.set(options.verify.atMs / 1000);
    }
    // What `registry.metrics()` returns (each metric's text, a blank line between them, a newline at the end), handed
    // on one metric at a time: its one string of the whole text (4.7 MB for 1,000 pipelines), with every metric's text
    // held until the join, outlived several collections of the young generation and went to the old one at each scrape.
    const names = registry.getMetricsAsArray().map((metric) => metric.name);
    for (const [i, name] of names.entries()) print(`${i === 0 ? '' : '\n\n'}${await registry.getSingleMetricAsString(name)}`);
    print('\n');
    // Nothing of this scrape is held until the next one.
    registry.resetMetrics();
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
        const chunks: Buffer[] = [];
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
  const get = async () => {
    const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
    for (const { pipeline, tally } of pipelines) {
      for (const outcome of OUTCOMES) {
        const entry = tally[outcome];
        if (entry === undefined || entry.timed === 0) continue;
        const labels = { pipeline, outcome };
        DURATION_BUCKETS.forEach((le, i) => values.push({ labels: { ...labels, le }, value: entry.le[i] ?? 0, metricName: `${name}_bucket` }));
        values.push({ labels: { ...labels, le: '+Inf' }, value: entry.timed, metricName: `${name}_bucket` });
        values.push({ labels, value: entry.ms / 1000, metricName: `${name}_sum` });
        values.push({ labels, value: entry.timed, metricName: `${name}_count` });
      }
    }
    return { name, help, type: 'histogram', values, aggregator: 'sum' };
  };
  return { name, help, get, reset: () => undefined } as unknown as Metric;
}

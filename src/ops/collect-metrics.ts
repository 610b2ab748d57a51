import { PENDING_REASONS } from '../../projections/pending.js';
import type { RunOutcome } from '../../projections/views/run-outcome.js';
import { DURATION_BUCKETS } from '../../projections/views/run-tally.js';
import type { PipelineDefinition } from '../../events/pipeline-definition.js';
import type { Ledger } from '../ledger/ledger.js';
import { statusViewOfTable, type PipelineStatusView } from '../ledger/ledger-queries.js';
import { viewOfSummary } from '../ledger/read-model-views.js';
import { toolVersion } from '../runtime.js';
import type { VerifyResult } from './chain-verifier.js';
import { metricsText } from './metrics-text.js';
import { readSchedulers } from './read-schedulers.js';
import type { SchedulerHealthView } from '../../projections/views/scheduler-health.js';

/** The content type of Prometheus text format 0.0.4 (prom-client's `Registry.PROMETHEUS_CONTENT_TYPE`). */
const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const OUTCOMES: RunOutcome[] = ['success', 'failed', 'interrupted', 'abandoned', 'cleared'];
const REASONS = PENDING_REASONS;

/** A pipeline as one scrape reads it: its definition, and its status and runs by outcome; `labels`, its `pipeline` label as printed. */
type ScrapeRow = { pipeline: string; definition: PipelineDefinition; view: PipelineStatusView; labels: string };

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
 * A collector for a process that scrapes again and again (`serve` has one): its scrapes run one after
 * another (a second waits for the first), so two never hold a scrape's rows at once; `collectBytes` hands
 * the text back as pieces of bytes (none of the whole text at once).
 *
 * @example
 * const metrics = metricsCollector();
 * const { text } = await metrics.collect(ledger, { nowMs: Date.now(), verify: null });
 */
export function metricsCollector(): {
  collect(ledger: Ledger, options: MetricsInput): Promise<{ text: string; contentType: string }>;
  collectBytes(ledger: Ledger, options: MetricsInput): Promise<{ chunks: Uint8Array[]; contentType: string }>;
} {
  // What a scrape prints, in prom-client's registry order (the order the metrics were made in when each was a prom-client
  // metric): each metric a sample at a time, straight from the rows, never a value, label set or line list of a whole metric.
  const collect = async (ledger: Ledger, options: MetricsInput, print: (text: string) => void): Promise<string> => {
    const ledgerHead = await ledger.store.head();
    // A retired pipeline leaves the metrics (its series end); a paused one stays, with runledger_pipeline_paused 1.
    const controls = await ledger.controls();
    const definitions = (await ledger.pipelines()).filter((d) => !controls.get(d.pipeline)?.retired);
    const statusOf = await statusReader(ledger, options.nowMs);
    // The status and the runs by outcome of each pipeline from its summary row (no run and no event is read).
    const out = metricsText(print);
    const rows: ScrapeRow[] = [];
    for (const definition of definitions) {
      const pipeline = definition.pipeline;
      rows.push({ pipeline, definition, view: await statusOf(pipeline), labels: out.labels([['pipeline', pipeline]]) });
    }
    const consumers = await ledger.store.consumers.list();
    const gauge = (name: string, help: string, fill: (sample: (labels: string, value: number) => void) => void) => {
      out.metric(name, help, 'gauge');
      fill((labels, value) => out.sample(name, labels, value));
    };
    // A metric per pipeline: `value` null leaves the pipeline out (the metric is absent for it).
    const perPipeline = (name: string, help: string, value: (row: ScrapeRow) => number | null) =>
      gauge(name, help, (sample) => {
        for (const row of rows) {
          const v = value(row);
          if (v !== null) sample(row.labels, v);
        }
      });
    const seconds = (iso: string | null | undefined) => (iso === null || iso === undefined ? null : Date.parse(iso) / 1000);
    perPipeline(
      'runledger_pipeline_watermark_timestamp_seconds',
      'Logical date of the highest date key that ever succeeded (never goes down), as a Unix timestamp; absent before any success.',
      ({ view }) => seconds(view.watermarkLogicalDate),
    );
    perPipeline(
      'runledger_pipeline_complete_through_timestamp_seconds',
      'Logical date of the last date key up to which every date is a success, as a Unix timestamp; absent when none is.',
      ({ view }) => seconds(view.completeThroughLogicalDate),
    );
    perPipeline('runledger_pipeline_complete_until_timestamp_seconds', "End of the complete-through date's data interval: the data is complete up to this instant.", ({ view }) => seconds(view.status.completeUntil));
    perPipeline(
      'runledger_pipeline_lag_seconds',
      "Now minus the end of the complete-through date's data interval (from the first slot's start when nothing is complete); absent before any slot is due.",
      ({ view }) => view.status.lagSeconds,
    );
    perPipeline('runledger_pipeline_freshness_seconds', 'The lag the pipeline may reach (define --freshness); absent when none is set.', ({ view }) => view.status.freshnessSeconds);
    gauge('runledger_pipeline_pending', 'Due dates not done, by reason.', (sample) => {
      for (const { pipeline, view } of rows) for (const reason of REASONS) sample(out.labels([['pipeline', pipeline], ['reason', reason]]), view.status.pending[reason]);
    });
    perPipeline('runledger_pipeline_running', 'Runs in flight with a live lease.', ({ view }) => view.status.inFlight.length);
    perPipeline('runledger_pipeline_stalled', 'Runs still running whose lease expired.', ({ view }) => view.status.stalled.length);
    perPipeline('runledger_pipeline_dates_behind', 'Due dates after the complete-through date.', ({ view }) => view.status.behind);
    // Every outcome is present from zero, so `increase()` sees the first failure.
    out.metric('runledger_runs_total', 'Finished runs by outcome (a later clear does not change how a run ended).', 'counter');
    for (const { pipeline, view } of rows) for (const outcome of OUTCOMES) out.sample('runledger_runs_total', out.labels([['pipeline', pipeline], ['outcome', outcome]]), view.runTally[outcome]?.runs ?? 0);
    printDurations(out, rows);
    perPipeline(
      'runledger_last_success_timestamp_seconds',
      'When the run that succeeded last recorded its success, as a Unix timestamp (a later clear of its date does not change it); absent before any success.',
      ({ view }) => seconds(view.status.lastSuccess?.at),
    );
    perPipeline(
      'runledger_last_failure_timestamp_seconds',
      'When the run that failed (or was abandoned) last recorded its failure, as a Unix timestamp (a later retry does not change it); absent before any failure.',
      ({ view }) => seconds(view.status.lastFailure?.at),
    );
    gauge('runledger_pipeline_info', "A pipeline's definition as labels, always 1: its schedule, zone, timetable and the OpenLineage job bound to it (namespace/name, empty when none).", (sample) => {
      for (const { pipeline, definition: d } of rows) {
        const job = d.openlineage ? `${d.openlineage.namespace}/${d.openlineage.job}` : '';
        sample(out.labels([['pipeline', pipeline], ['schedule', d.schedule], ['timezone', d.timezone], ['timetable', d.timetable], ['openlineage_job', job]]), 1);
      }
    });
    perPipeline('runledger_pipeline_paused', '1 while the pipeline is paused (runledger pause): fleet runs start none of its dates; else 0.', ({ pipeline }) => (controls.get(pipeline)?.paused ? 1 : 0));
    perPipeline(
      'runledger_pipeline_paused_since_timestamp_seconds',
      'When the pause of a paused pipeline was recorded, as a Unix timestamp; absent while it is not paused.',
      ({ pipeline }) => seconds(controls.get(pipeline)?.paused?.since),
    );
    gauge('runledger_build_info', 'The runledger version and Node.js version that answer, always 1.', (sample) => sample(out.labels([['version', toolVersion], ['node_version', process.version]]), 1));
    gauge('runledger_ledger_head_position', 'Position of the last event in the ledger.', (sample) => sample('', ledgerHead.position));
    gauge('runledger_consumer_position', 'The last position a durable consumer (follow --consumer) acknowledged.', (sample) => {
      for (const consumer of consumers) sample(out.labels([['consumer', consumer.name]]), consumer.position);
    });
    gauge('runledger_consumer_behind_events', 'Events between the head and what a durable consumer acknowledged.', (sample) => {
      for (const consumer of consumers) sample(out.labels([['consumer', consumer.name]]), Math.max(0, ledgerHead.position - consumer.position));
    });
    const schedulers = await readSchedulers(ledger, options.nowMs);
    const perScheduler = (name: string, help: string, value: (s: SchedulerHealthView) => number | null) =>
      gauge(name, help, (sample) => {
        for (const s of schedulers) {
          const v = value(s);
          if (v !== null) sample(out.labels([['host', s.host], ['pid', String(s.pid)]]), v);
        }
      });
    gauge('runledger_scheduler_info', 'A scheduler that recorded its health (runledger scheduler), always 1: its state (running, draining, stopped) and version as labels.', (sample) => {
      for (const s of schedulers) sample(out.labels([['host', s.host], ['pid', String(s.pid)], ['state', s.state], ['version', s.version]]), 1);
    });
    perScheduler('runledger_scheduler_stale', '1 when a scheduler that is not stopped has been silent for more than three heartbeats (killed, hung or cut off from the ledger), else 0.', (s) => (s.stale ? 1 : 0));
    perScheduler('runledger_scheduler_heartbeat_age_seconds', 'Seconds since the scheduler last wrote its health row.', (s) => s.silentSeconds);
    perScheduler('runledger_scheduler_last_pass_timestamp_seconds', "When the scheduler's last pass began, as a Unix timestamp; absent before its first.", (s) => seconds(s.lastPassAt));
    perScheduler('runledger_scheduler_next_wake_timestamp_seconds', 'When the scheduler will next wake (a slot due, a retry, a lease running out), as a Unix timestamp; absent when stopped or with nothing ahead.', (s) => (s.state === 'stopped' ? null : seconds(s.nextWake?.at)));
    perScheduler('runledger_scheduler_runs_in_flight', 'Runs the scheduler has started that have not ended.', (s) => s.inFlight.length);
    perScheduler('runledger_scheduler_parallel', 'Runs the scheduler may have in flight at once (--parallel).', (s) => s.parallel);
    // Before the first verification, 0 (as a gauge without labels starts).
    const verify = options.verify;
    gauge('runledger_ledger_verify_ok', '1 when the last verification found the hash chain intact, 0 when it found it broken.', (sample) => sample('', verify?.ok ? 1 : 0));
    gauge('runledger_ledger_verified_position', 'The last position the last verification checked out.', (sample) => sample('', verify ? verify.head.position : 0));
    gauge('runledger_ledger_verify_timestamp_seconds', 'When the last verification ran, as a Unix timestamp.', (sample) => sample('', verify ? verify.atMs / 1000 : 0));
    out.end();
    return PROMETHEUS_CONTENT_TYPE;
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
 * The run duration histogram from the pipelines' run tallies (bucket counts kept in the summary rows), as
 * prom-client's registry prints a histogram: per pipeline and outcome with a timed run, the cumulative
 * buckets, `+Inf`, the sum in seconds and the count.
 */
function printDurations(out: ReturnType<typeof metricsText>, rows: readonly ScrapeRow[]): void {
  const name = 'runledger_run_duration_seconds';
  out.metric(name, 'Duration of finished runs, from start to success, failure or abandonment.', 'histogram');
  for (const { pipeline, view } of rows) {
    for (const outcome of OUTCOMES) {
      const entry = view.runTally[outcome];
      if (entry === undefined || entry.timed === 0) continue;
      const labels = out.labels([['pipeline', pipeline], ['outcome', outcome]]);
      for (let i = 0; i < DURATION_BUCKETS.length; i++) out.sample(`${name}_bucket`, `${labels},le="${DURATION_BUCKETS[i] as number}"`, entry.le[i] ?? 0);
      out.sample(`${name}_bucket`, `${labels},le="+Inf"`, entry.timed);
      out.sample(`${name}_sum`, labels, entry.ms / 1000);
      out.sample(`${name}_count`, labels, entry.timed);
    }
  }
}

import type { RunOutput } from '../../../events/common.js';
import type { RunRecord } from '../../../projections/run-history.js';
import type { Ledger } from '../../ledger/ledger.js';

/** The `_producer` and `producer` of every exported event: this runledger release. */
function producerUri(toolVersion: string): string {
  return `https://www.npmjs.com/package/runledger/v/${toolVersion}`;
}

/** The `_schemaURL` of runledger's own run facet, which carries what OpenLineage has no field for (date key, attempt, run type). */
const RUNLEDGER_FACET_SCHEMA = 'https://www.npmjs.com/package/runledger#runledger-run-facet';

const EVENT_SCHEMA = 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent';
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * An OpenLineage runId (a UUID) for a ledger run id: a UUID stays as it is
 * (runs ingested from OpenLineage keep the producer's id); a ULID becomes the
 * UUID of the same 128 bits, so the mapping is stable and reversible.
 *
 * @example
 * openLineageRunId('01ARZ3NDEKTSV4RRFFQ69G5FAV') // '01563e3a-b5d3-d676-4c61-efb99302bd5b'
 */
export function openLineageRunId(runId: string): string {
  if (/^[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i.test(runId)) return runId.toLowerCase();
  let bits = 0n;
  if (/^[0-9A-HJKMNP-TV-Z]{26}$/i.test(runId)) {
    for (const ch of runId.toUpperCase()) bits = (bits << 5n) | BigInt(CROCKFORD.indexOf(ch));
  } else {
    // Neither a UUID nor a ULID (a run id a library caller chose): 128 bits of its FNV-1a hashes, stable across exports.
    for (let round = 0; round < 2; round++) {
      let h = 0xcbf29ce484222325n + BigInt(round);
      for (const ch of runId) h = ((h ^ BigInt(ch.codePointAt(0) ?? 0)) * 0x100000001b3n) & 0xffffffffffffffffn;
      bits = (bits << 64n) | h;
    }
  }
  const hex = (bits & ((1n << 128n) - 1n)).toString(16).padStart(32, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

type ExportOptions = { pipeline?: string; toolVersion: string };

/**
 * The ledger's runs as OpenLineage RunEvents, one JSON line each, in
 * `eventTime` order: a `START` per run at its start (the producer's own time
 * for an ingested run), then `COMPLETE` (with the run's outputs), `FAIL`
 * (with the errorMessage facet), or `ABORT` (abandoned, or cleared while
 * running) at its end; a running run has its `START` only. Every run carries
 * `nominalTime` (its data interval) and a `runledger` facet with its date
 * key, attempt and run type. The job is the pipeline's OpenLineage binding,
 * else `runledger/<pipeline>`.
 *
 * @example
 * for await (const line of exportOpenLineage(ledger, { toolVersion })) process.stdout.write(line);
 */
export async function* exportOpenLineage(ledger: Ledger, options: ExportOptions): AsyncGenerator<string> {
  const producer = producerUri(options.toolVersion);
  const facet = (schema: string) => ({ _producer: producer, _schemaURL: schema });
  const definitions = (await ledger.pipelines()).filter((p) => options.pipeline === undefined || p.pipeline === options.pipeline);
  const events: Array<{ at: number; line: string }> = [];
  for (const definition of definitions) {
    const { history } = await ledger.pipeline(definition.pipeline);
    const job = {
      namespace: definition.openlineage?.namespace ?? 'runledger',
      name: definition.openlineage?.job ?? definition.pipeline,
      facets: { jobType: { ...facet('https://openlineage.io/spec/facets/2-0-4/JobTypeJobFacet.json#/$defs/JobTypeJobFacet'), processingType: 'BATCH', integration: 'RUNLEDGER', jobType: 'JOB' } },
    };
    for (const run of history.runs.values()) {
      const runFacets: Record<string, unknown> = {
        nominalTime: { ...facet('https://openlineage.io/spec/facets/1-0-1/NominalTimeRunFacet.json#/$defs/NominalTimeRunFacet'), nominalStartTime: run.dataInterval.start, nominalEndTime: run.dataInterval.end },
        runledger: { ...facet(RUNLEDGER_FACET_SCHEMA), pipeline: definition.pipeline, date: run.date, attempt: run.attempt, runType: run.runType, runId: run.runId, forced: run.forced, offSchedule: run.offSchedule },
        processing_engine: { ...facet('https://openlineage.io/spec/facets/1-1-1/ProcessingEngineRunFacet.json#/$defs/ProcessingEngineRunFacet'), name: 'runledger', version: options.toolVersion },
      };
      const event = (eventType: string, eventTime: string, extra: Record<string, unknown> = {}, outputs: Array<{ namespace: string; name: string }> = []) => ({
        at: Date.parse(eventTime),
        line: `${JSON.stringify({
          eventType,
          eventTime,
          producer,
          schemaURL: EVENT_SCHEMA,
          run: { runId: openLineageRunId(run.runId), facets: { ...runFacets, ...extra } },
          job,
          inputs: [],
          outputs,
        })}\n`,
      });
      events.push(event('START', run.startedAt));
      const end = endOf(run);
      if (end && run.finishedAt) {
        const extra = end === 'FAIL' ? { errorMessage: { ...facet('https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet'), message: run.error ?? 'failed', programmingLanguage: 'unknown' } } : {};
        events.push(event(end, run.finishedAt, extra, end === 'COMPLETE' ? (run.outputs ?? []).map(datasetOf) : []));
      }
    }
  }
  events.sort((a, b) => a.at - b.at);
  for (const { line } of events) yield line;
}

/**
 * An output as an OpenLineage dataset: ingested ones kept their namespace and
 * name; a plain text (`succeed --output`, or an older ingest that joined them
 * with `/`) is split after its URI authority (`s3://bucket/key` → `s3://bucket`
 * and `key`), else at its first `/`, else it is a name in the `runledger` namespace.
 *
 * @example
 * datasetOf('postgres://db:5432/public.orders') // { namespace: 'postgres://db:5432', name: 'public.orders' }
 */
export function datasetOf(output: RunOutput): { namespace: string; name: string } {
  if (typeof output !== 'string') return { namespace: output.namespace, name: output.name };
  const uri = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]*)\/(.+)$/.exec(output);
  if (uri) return { namespace: uri[1] as string, name: uri[2] as string };
  const slash = output.indexOf('/');
  return slash > 0 && slash < output.length - 1 ? { namespace: output.slice(0, slash), name: output.slice(slash + 1) } : { namespace: 'runledger', name: output };
}

/** The end event of a run: a cleared run ends as it had before the clear (a clear fenced out a running one: ABORT). */
function endOf(run: RunRecord): 'COMPLETE' | 'FAIL' | 'ABORT' | null {
  switch (run.status) {
    case 'running':
      return null;
    case 'success':
      return 'COMPLETE';
    case 'failed':
      return 'FAIL';
    case 'abandoned':
    case 'interrupted':
      return 'ABORT';
    case 'cleared':
      if (run.metrics !== null) return 'COMPLETE';
      return run.error !== null && !run.error.startsWith('interrupted by ') ? 'FAIL' : 'ABORT';
  }
}

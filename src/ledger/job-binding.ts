import type { OpenLineageJob, PipelineDefinition } from '../../events/pipeline-definition.js';
import { LedgerError } from '../errors.js';

/** `namespace/job`, as the CLI option and every message write it. */
export function jobText(job: OpenLineageJob): string {
  return `${job.namespace}/${job.job}`;
}

/** True when both name the same OpenLineage job (or both none). */
export function sameJob(a: OpenLineageJob | undefined, b: OpenLineageJob | undefined): boolean {
  return a?.namespace === b?.namespace && a?.job === b?.job;
}

/**
 * One OpenLineage job fills one pipeline: binding a job that another pipeline
 * already has is refused (`ledger.jobBound`, exit 3), since its events could
 * then land in either.
 *
 * @example
 * refuseTakenBinding(await ledger.pipelines(), definition)
 */
export function refuseTakenBinding(pipelines: readonly PipelineDefinition[], definition: PipelineDefinition): void {
  const job = definition.openlineage;
  if (!job) return;
  const holder = pipelines.find((p) => p.pipeline !== definition.pipeline && sameJob(p.openlineage, job));
  if (holder) {
    throw new LedgerError(
      'ledger.jobBound',
      `the OpenLineage job ${jobText(job)} is already bound to pipeline ${holder.pipeline}; unbind it first with \`runledger define ${holder.pipeline} --no-openlineage\``,
    );
  }
}

import type { OpenLineageJob, PipelineDefinition } from '../../../events/pipeline-definition.js';
import type { EventStore } from '../../store/event-store.js';
import { jobText } from '../../ledger/job-binding.js';

/**
 * Which pipeline each OpenLineage job fills, kept current by reading only
 * the events appended since the last look (another process may `define`
 * while `serve` runs), so a busy endpoint never rescans the ledger.
 *
 * @example
 * const bindings = new BindingIndex(ledger.store);
 * await bindings.pipelineOf({ namespace: 'default', job: 'airflow_orders' }) // 'airflow_orders'
 */
export class BindingIndex {
  readonly #store: EventStore;
  readonly #definitions = new Map<string, PipelineDefinition>();
  #byJob = new Map<string, string>();
  #position = 0;
  #catchingUp: Promise<void> = Promise.resolve();
  #defining: Promise<unknown> = Promise.resolve();

  constructor(store: EventStore) {
    this.#store = store;
  }

  /** The pipeline bound to the job, or undefined. */
  async pipelineOf(job: OpenLineageJob): Promise<string | undefined> {
    await this.#catchUp();
    return this.#byJob.get(jobText(job));
  }

  /** The current definition of a pipeline, or undefined. */
  async definition(pipeline: string): Promise<PipelineDefinition | undefined> {
    await this.#catchUp();
    return this.#definitions.get(pipeline);
  }

  /** Runs `body` after every earlier call has finished: auto-definitions of one server never race each other. */
  exclusively<T>(body: () => Promise<T>): Promise<T> {
    const next = this.#defining.catch(() => undefined).then(body);
    this.#defining = next;
    return next;
  }

  #catchUp(): Promise<void> {
    const next = this.#catchingUp.catch(() => undefined).then(() => this.#read());
    this.#catchingUp = next;
    return next;
  }

  async #read(): Promise<void> {
    const head = await this.#store.head();
    if (head.position <= this.#position) return;
    let changed = false;
    for await (const batch of this.#store.read({ fromPosition: this.#position + 1, toPosition: head.position, batchSize: 5000 })) {
      for (const event of batch) {
        if (event.type === 'PipelineDefined') this.#definitions.set(event.data.pipeline, event.data);
        else if (event.type === 'PipelineRedefined') this.#definitions.set(event.data.pipeline, event.data.definition);
        else continue;
        changed = true;
      }
    }
    this.#position = head.position;
    if (!changed) return;
    // The first pipeline to bind a job keeps it (`define` refuses a second one; an old ledger might still hold two).
    const byJob = new Map<string, string>();
    for (const definition of this.#definitions.values()) {
      if (definition.openlineage && !byJob.has(jobText(definition.openlineage))) byJob.set(jobText(definition.openlineage), definition.pipeline);
    }
    this.#byJob = byJob;
  }
}

/**
 * A rebuild's worker thread (see `foldInWorkers`): folds its share of the pipelines from its own read-only
 * connection and posts each one's rows as values on its port, in order, counting them in `signal` so the
 * rebuild, which waits in its transaction without an event loop, wakes for each.
 */
import Database from 'better-sqlite3';
import { workerData, type MessagePort } from 'node:worker_threads';
import { isLedgerError } from '../../errors.js';
import { foldPipeline, pipelineValues, PIPELINE_EVENTS_SQL } from './pipeline-rows.js';
import type { RebuildWorkerData } from './fold-in-workers.js';

const { path, head, pipelines, port, signal } = workerData as RebuildWorkerData & { port: MessagePort };
const posted = (): void => {
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
};
try {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  const select = db.prepare(PIPELINE_EVENTS_SQL).raw(true);
  for (const pipeline of pipelines) {
    let events = 0;
    const folded = foldPipeline(select, pipeline, head, (n) => {
      events += n;
    });
    port.postMessage(pipelineValues(folded, events));
    posted();
  }
  db.close();
} catch (error) {
  // Thrown again by the rebuild as it would have been thrown in its own thread.
  port.postMessage({ error: error instanceof Error ? error.message : String(error), code: isLedgerError(error) ? error.code : null });
  posted();
}
port.close();

import type { Worker } from 'node:worker_threads';

/** The messages a worker thread posts, taken in the order it posted them (see `workerInbox`). */
export type WorkerInbox<M> = {
  /** The next message, when it comes; throws once the worker has crashed or stopped. */
  next(): Promise<M>;
};

/**
 * Queues what a worker thread posts, and its end: an error it threw, or its exit (with the message
 * `stopped` words for its exit code) before the caller was done with it. The caller terminates the worker
 * when done, after removing its listeners, so that exit is not taken for a crash.
 *
 * @example
 * const inbox = workerInbox<WorkerMessage>(worker, (code) => `the import worker stopped (exit code ${code})`);
 * const message = await inbox.next();
 */
export function workerInbox<M>(worker: Worker, stopped: (code: number) => string): WorkerInbox<M> {
  const queue: Array<{ message: M } | { crash: Error }> = [];
  let wake: (() => void) | null = null;
  const push = (item: { message: M } | { crash: Error }) => {
    queue.push(item);
    wake?.();
    wake = null;
  };
  worker.on('message', (message: M) => push({ message }));
  worker.on('error', (error) => push({ crash: error }));
  worker.on('exit', (code) => push({ crash: new Error(stopped(code)) }));
  return {
    async next() {
      while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const item = queue[0] as { message: M } | { crash: Error };
      // A crash stays at the head of the queue: every later call throws it again.
      if ('crash' in item) throw item.crash;
      queue.shift();
      return item.message;
    },
  };
}

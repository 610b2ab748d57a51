import type { EventType } from '../../events/types/ledger-event.js';
import type { RecordedEvent } from '../../events/recorded-event.js';
import { LedgerError } from '../errors.js';
import { watchAppends } from './watch-appends.js';
import { durationOption, type Duration } from './library-options.js';
import type { EventStore } from '../store/event-store.js';

/** Which events a subscription hands over; the others are passed by (and acknowledged) unseen. */
export type SubscriptionFilter = { pipeline?: string; types?: readonly EventType[] };

export type SubscribeOptions = {
  /**
   * A durable consumer's name: where it got to is stored in the ledger's
   * database, and a restarted consumer resumes right after it.
   */
  consumer?: string;
  /** The first position to hand over when there is no stored one (default: whatever is appended from now on). */
  fromPosition?: number;
  filter?: SubscriptionFilter;
  /** How many times a failing handler is retried before the subscription stops (default 3). */
  retries?: number;
  /** The first pause before a retry, doubled after each: `"1s"` (the default) or milliseconds. */
  retryDelay?: Duration;
  /** How often to look for new events when the store cannot notify: `"250ms"` (the default) or milliseconds. */
  poll?: Duration;
  /** @deprecated Use `retryDelay`; works until the next minor version. */
  retryDelayMs?: number;
  /** @deprecated Use `poll`; works until the next minor version. */
  pollMs?: number;
  /** Milliseconds since the epoch, for the stored positions' `updated_at`. */
  clock?: () => number;
  /** Told about each failed attempt that will be retried. */
  onRetry?: (event: RecordedEvent, attempt: number, error: unknown, delayMs: number) => void;
};

/** A running subscription: `stop()` ends it after the event in hand; `done` settles when it ends. */
export type Subscription = {
  /** The position the subscription started after. */
  readonly startedAfter: number;
  stop(): Promise<void>;
  /** Resolves when stopped; rejects with `consumer.handlerFailed` when the handler kept failing. */
  readonly done: Promise<void>;
};

/** Consumer names as in pipeline names, with capitals: they name a table row and appear in messages. */
const CONSUMER_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/**
 * A catch-up subscription (as EventStoreDB's or Emmett's consumers): hands
 * every event after the start, in position order, to `handler`, one at a
 * time, then waits for new ones (PostgreSQL: LISTEN/NOTIFY; SQLite: polling).
 *
 * With `consumer`, a position is stored (outside the hash chain) after the
 * handler of an event resolves, never before, so a consumer killed at any
 * moment gets every event at least once, in order, none skipped: at most the
 * event in hand is handed over again. A handler that throws is retried with
 * a doubling pause; after the last retry the subscription stops with the
 * position still before that event.
 *
 * @example
 * const sub = await subscribe(ledger.store, { consumer: 'alerts', filter: { types: ['RunFailed'] } }, async (event) => notify(event));
 * await sub.done;
 */
export async function subscribe(store: EventStore, options: SubscribeOptions, handler: (event: RecordedEvent) => Promise<void> | void): Promise<Subscription> {
  const consumer = options.consumer;
  if (consumer !== undefined && !CONSUMER_NAME.test(consumer)) {
    throw new LedgerError('input.invalidConsumerName', `'${consumer}' is not a valid consumer name; use letters, digits, '_', '.' or '-' (at most 128 characters)`);
  }
  if (options.fromPosition !== undefined && (!Number.isSafeInteger(options.fromPosition) || options.fromPosition < 1)) {
    throw new LedgerError('input.invalidPosition', `the position to start from must be a whole number of 1 or more, not ${options.fromPosition}`);
  }
  const clock = options.clock ?? Date.now;
  const save = (position: number) => (consumer === undefined ? Promise.resolve() : store.consumers.save(consumer, position, new Date(clock()).toISOString()));
  const stored = consumer === undefined ? null : await store.consumers.get(consumer);
  let cursor = stored ?? (options.fromPosition !== undefined ? options.fromPosition - 1 : (await store.head()).position);
  // A new consumer's start is stored at once, so a restart before its first event cannot jump ahead.
  if (consumer !== undefined && stored === null) await save(cursor);
  const startedAfter = cursor;
  let acked = cursor;

  const types = options.filter?.types ? new Set<string>(options.filter.types) : null;
  const pipeline = options.filter?.pipeline;
  const matches = (event: RecordedEvent) => (types === null || types.has(event.type)) && (pipeline === undefined || event.data.pipeline === pipeline);
  const retries = options.retries ?? 3;
  const firstDelay = durationOption(options, 'retryDelay', 'ledger.subscribe', true) ?? 1000;
  const pollMs = durationOption(options, 'poll', 'ledger.subscribe') ?? 250;

  let stopped = false;
  let woken = false;
  let wake: (() => void) | null = null;
  const rouse = () => {
    woken = true;
    wake?.();
  };
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => (wake = null));
  const unwatch = await watchAppends(store, rouse, { intervalMs: pollMs, after: cursor });

  /** True once the handler took the event; false when stopped while it was still failing (nothing is acknowledged then). */
  const deliver = async (event: RecordedEvent): Promise<boolean> => {
    for (let attempt = 1; ; attempt++) {
      try {
        await handler(event);
        return true;
      } catch (error) {
        if (stopped) return false;
        if (attempt > retries) {
          const why = error instanceof Error ? error.message : String(error);
          throw new LedgerError(
            'consumer.handlerFailed',
            `${consumer === undefined ? 'the handler' : `consumer ${consumer}`} failed on event ${event.position} (${event.type}) ${attempt} time${attempt === 1 ? '' : 's'}: ${why.split('\n')[0]}; ` +
              (consumer === undefined ? 'the subscription stopped' : `its position stays before event ${event.position}, so a restart hands that event over again`),
            { cause: error },
          );
        }
        const delay = firstDelay * 2 ** (attempt - 1);
        options.onRetry?.(event, attempt, error, delay);
        await pause(delay);
      }
    }
  };

  const loop = async (): Promise<void> => {
    try {
      while (!stopped) {
        woken = false;
        for await (const batch of store.read({ fromPosition: cursor + 1, batchSize: 500, ...(pipeline === undefined ? {} : { pipeline }) })) {
          for (const event of batch) {
            if (stopped) return;
            if (matches(event)) {
              // The events passed by before this one are handled whatever becomes of it.
              if (cursor > acked) {
                await save(cursor);
                acked = cursor;
              }
              if (!(await deliver(event))) return;
              await save(event.position);
              acked = event.position;
            }
            cursor = event.position;
          }
          // Events passed by unseen are acknowledged once per batch, so a restart does not read them again.
          if (cursor > acked) {
            await save(cursor);
            acked = cursor;
          }
        }
        if (!stopped && !woken) await new Promise<void>((resolve) => (wake = resolve)).finally(() => (wake = null));
      }
    } finally {
      await unwatch();
    }
  };
  const done = loop();
  // `done` is the caller's to await; this keeps an unawaited failure from crashing the process twice.
  done.catch(() => undefined);
  return {
    startedAfter,
    async stop() {
      stopped = true;
      wake?.();
      await done.catch(() => undefined);
    },
    done,
  };
}

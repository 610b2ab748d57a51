import { setTimeout as sleepFor } from 'node:timers/promises';
import type { RecordedEvent } from '../../../events/recorded-event.js';
import { runOutcome } from '../../../projections/views/run-outcome.js';
import { LedgerError } from '../../errors.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { Subscription } from '../../ledger/subscribe.js';
import { durationOption, type Duration } from '../../ledger/library-options.js';
import { deadlineNotifications } from './deadline-notifications.js';
import { DeliveryError, type Deliver } from './deliver-notification.js';
import { failedNotification, recoveredNotification, type Notification, type NotifyKind } from './notification.js';

export type NotifierOptions = {
  /** The durable consumer: its event position is kept as `follow --consumer` keeps it, its clock as `<consumer>.deadlines`. */
  consumer: string;
  kinds: readonly NotifyKind[];
  deliver: Deliver;
  /** Only this pipeline (default: every pipeline). */
  pipeline?: string;
  /** Where a new consumer starts (default: the events appended from now on). */
  fromPosition?: number;
  /** Tries of one notification after the first before the notifier stops (its position stays before it). */
  retries: number;
  /** The pause before the first retry, doubled after each (at most a minute): `"1s"` (the default) or milliseconds. */
  retryDelay?: Duration;
  /** How often to look at the clock for late and stalled dates: `"30s"` (the default) or milliseconds. */
  checkEvery?: Duration;
  /** @deprecated Use `retryDelay`; works until the next minor version. */
  retryDelayMs?: number;
  /** @deprecated Use `checkEvery`; works until the next minor version. */
  checkEveryMs?: number;
  /** Handle what is there now (events up to the head, deadlines up to now), then stop. */
  once?: boolean;
  signal?: AbortSignal;
  onDelivered?: (notification: Notification) => void;
  onRetry?: (notification: Notification, attempt: number, error: Error, delayMs: number) => void;
  /** How to wait between retries and clock checks (tests pass their own); default a timer. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
};

const MAX_RETRY_DELAY_MS = 60_000;

/**
 * `runledger notify`: a durable consumer that turns the ledger's events, and the clock, into notifications.
 *
 * Events: `failed` for a `RunFailed` that no `RetryScheduled` follows (they are appended together, so the
 * next event settles it), `recovered` for a run's success or a mark of a date whose previous outcome was a
 * final failure. The event position is stored after its notification was delivered, so every notification is
 * delivered at least once, with an idempotency key derived from its event: a copy after a crash carries the
 * same key.
 *
 * The clock: every `checkEvery`, the deadlines that passed since the last check (`late`: run-after plus
 * the pipeline's SLA of a slot not done; `stalled`: the end of a running date's lease) are reported, then the
 * instant checked up to is stored as the position of `<consumer>.deadlines`. A new consumer starts that clock
 * at now: deadlines that passed before it existed are not reported (`pending` and `check` show them).
 *
 * @example
 * await runNotifier(ledger, { consumer: 'oncall', kinds: ['failed', 'late'], deliver, retries: 5, retryDelay: '1s' });
 */
export async function runNotifier(ledger: Ledger, options: NotifierOptions): Promise<{ delivered: number }> {
  const sleep = options.sleep ?? ((ms: number, signal?: AbortSignal) => sleepFor(ms, undefined, signal ? { signal } : {}).then(() => undefined));
  const wantEvents = options.kinds.includes('failed') || options.kinds.includes('recovered');
  const wantClock = options.kinds.includes('late') || options.kinds.includes('stalled') || options.kinds.includes('overdue');
  const retryDelayMs = durationOption(options, 'retryDelay', 'runNotifier', true) ?? 1000;
  const checkEveryMs = durationOption(options, 'checkEvery', 'runNotifier') ?? 30_000;
  if (options.pipeline !== undefined) await ledger.pipeline(options.pipeline);
  let delivered = 0;
  let sending: Promise<unknown> = Promise.resolve();

  /** Delivers one notification, retrying with a doubling pause; the events and the clock take turns. */
  const send = (n: Notification): Promise<void> => {
    const turn = sending.then(async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          await options.deliver(n);
          delivered += 1;
          options.onDelivered?.(n);
          return;
        } catch (error) {
          const e = error instanceof Error ? error : new Error(String(error));
          if ((e instanceof DeliveryError && e.permanent) || attempt > options.retries || options.signal?.aborted) {
            throw new LedgerError('consumer.handlerFailed', `the ${n.kind} notification of ${n.pipeline} ${n.date} was not delivered after ${attempt} ${attempt === 1 ? 'try' : 'tries'}: ${e.message}`, { cause: e });
          }
          const delay = Math.min(retryDelayMs * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS);
          options.onRetry?.(n, attempt, e, delay);
          await sleep(delay, options.signal).catch(() => undefined);
        }
      }
    });
    sending = turn.catch(() => undefined);
    return turn;
  };

  const onEvent = async (event: RecordedEvent): Promise<void> => {
    for (const n of await eventNotifications(ledger, event, options.kinds)) await send(n);
  };

  let subscription: Subscription | undefined;
  let stopping = false;
  const stop = () => {
    stopping = true;
    void subscription?.stop();
  };
  options.signal?.addEventListener('abort', stop, { once: true });
  try {
    if (wantEvents) {
      const head = (await ledger.store.head()).position;
      subscription = await ledger.subscribe(
        {
          consumer: options.consumer,
          retries: 0,
          ...(options.fromPosition === undefined ? {} : { fromPosition: options.fromPosition }),
          ...(options.pipeline === undefined ? {} : { filter: { pipeline: options.pipeline } }),
        },
        async (event) => {
          await onEvent(event);
          if (options.once && event.position >= head) stop();
        },
      );
      if (options.once && subscription.startedAfter >= head) stop();
    }
    // Once: the events up to the head first, then the clock, so one run reports in a stable order.
    if (options.once) await subscription?.done;
    const clock = wantClock ? deadlineClock(ledger, options, send) : undefined;
    if (clock) {
      await clock.check();
      while (!options.once && !stopping) {
        await sleep(checkEveryMs, options.signal).catch(() => undefined);
        if (stopping || options.signal?.aborted) break;
        await clock.check();
      }
    }
    await subscription?.done;
    // A stop during a clock check's delivery: the check settles (or throws) before the notifier ends.
    await sending;
    return { delivered };
  } finally {
    options.signal?.removeEventListener('abort', stop);
    await subscription?.stop();
  }
}

/** The clock side: checks the deadlines passed since the stored instant, then stores the instant it checked up to. */
function deadlineClock(ledger: Ledger, options: NotifierOptions, send: (n: Notification) => Promise<void>) {
  const name = `${options.consumer}.deadlines`;
  let from: number | null = null;
  return {
    async check(): Promise<void> {
      const now = ledger.now();
      if (from === null) {
        const stored = await ledger.store.consumers.get(name);
        from = stored ?? now;
        if (stored === null) await ledger.store.consumers.save(name, now, new Date(now).toISOString());
      }
      const pipelines = options.pipeline !== undefined ? [options.pipeline] : (await ledger.pipelines()).map((p) => p.pipeline);
      for (const n of await deadlineNotifications(ledger, pipelines, { fromMs: from, toMs: now }, options.kinds)) await send(n);
      if (now > from) {
        await ledger.store.consumers.save(name, now, new Date(now).toISOString());
        from = now;
      }
    },
  };
}

/**
 * The notifications one event makes: `failed` for a final failure (no `RetryScheduled` right after it),
 * `recovered` for a success or a mark of a date whose previous outcome was a final failure.
 */
async function eventNotifications(ledger: Ledger, event: RecordedEvent, kinds: readonly NotifyKind[]): Promise<Notification[]> {
  if (event.type === 'RunFailed' && kinds.includes('failed')) {
    // A retry is appended with its failure, in the same transaction: the next position says whether this one was final.
    const next = await nextEvent(ledger, event.position);
    if (next?.type === 'RetryScheduled' && next.data.runId === event.data.runId) return [];
    const { history } = await ledger.pipeline(event.data.pipeline);
    return [failedNotification(event, history.runs.get(event.data.runId)?.attempt ?? null)];
  }
  if (event.type === 'RunSucceeded' && kinds.includes('recovered')) {
    const { history } = await ledger.pipeline(event.data.pipeline);
    const run = history.runs.get(event.data.runId);
    if (!run) return [];
    // The attempt before this one on the same date, as it ended: a final failure (no retry was scheduled after it).
    let before: typeof run | undefined;
    for (const r of history.runs.values()) if (r.date === run.date && r.attempt < run.attempt && (!before || r.attempt > before.attempt)) before = r;
    if (!before || runOutcome(before) !== 'failed' || before.retry) return [];
    return [recoveredNotification(event, `attempt ${run.attempt} succeeded after attempt ${before.attempt} failed`, run.runId, run.attempt)];
  }
  if (event.type === 'RunMarked' && kinds.includes('recovered') && event.data.previousStatus === 'failed') {
    const why = event.metadata.reason ? `: ${event.metadata.reason}` : '';
    return [recoveredNotification(event, `marked ${event.data.status} by ${event.metadata.actor}${why}`, event.data.runId, null)];
  }
  return [];
}

async function nextEvent(ledger: Ledger, position: number): Promise<RecordedEvent | undefined> {
  for await (const batch of ledger.store.read({ fromPosition: position + 1, batchSize: 1 })) return batch[0];
  return undefined;
}

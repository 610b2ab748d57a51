import { describe, expect, test } from 'vitest';
import type { RecordedEvent } from '../../events/recorded-event.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import { openMemoryLedger } from '../../src/testing/open-memory-ledger.js';

const NOW = Date.parse('2026-11-10T00:00:00Z');

async function ledgerWithPipeline(): Promise<Ledger> {
  const ledger = openMemoryLedger({ clock: () => NOW });
  await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-01' });
  return ledger;
}

async function failDate(ledger: Ledger, date: string, pipeline = 'etl'): Promise<void> {
  const run = await ledger.start({ pipeline, date });
  await ledger.fail({ runId: run.runId, error: `boom ${date}` });
}

/** Resolves once `seen` holds n events (polled: the subscription runs on its own). */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('ledger.subscribe', () => {
  test('hands over the events appended after it starts, in position order, and only those its filter takes', async () => {
    const ledger = await ledgerWithPipeline();
    await failDate(ledger, '2026-11-01');
    const seen: RecordedEvent[] = [];
    const sub = await ledger.subscribe({ filter: { types: ['RunFailed'] }, poll: 5 }, (event) => void seen.push(event));
    await failDate(ledger, '2026-11-02');
    await failDate(ledger, '2026-11-03');
    await until(() => seen.length === 2, 'two failures');
    await sub.stop();
    expect(seen.map((e) => [e.type, 'date' in e.data ? e.data.date : null])).toEqual([
      ['RunFailed', '2026-11-02'],
      ['RunFailed', '2026-11-03'],
    ]);
    expect(seen[0]!.position).toBeLessThan(seen[1]!.position);
  });

  test('a pipeline filter passes other pipelines by', async () => {
    const ledger = await ledgerWithPipeline();
    await ledger.define({ pipeline: 'other', schedule: '@daily', start: '2026-11-01' });
    const seen: string[] = [];
    const sub = await ledger.subscribe({ fromPosition: 1, filter: { pipeline: 'etl', types: ['RunFailed'] }, poll: 5 }, (e) => void seen.push(`${e.data.pipeline} ${'date' in e.data ? e.data.date : ''}`));
    await failDate(ledger, '2026-11-01', 'other');
    await failDate(ledger, '2026-11-01');
    await until(() => seen.length === 1, 'the etl failure');
    await sub.stop();
    expect(seen).toEqual(['etl 2026-11-01']);
  });

  test('fromPosition hands over history too', async () => {
    const ledger = await ledgerWithPipeline();
    await failDate(ledger, '2026-11-01');
    const seen: number[] = [];
    const sub = await ledger.subscribe({ fromPosition: 1, poll: 5 }, (e) => void seen.push(e.position));
    await until(() => seen.length === 3, 'the three events');
    await sub.stop();
    expect(seen).toEqual([1, 2, 3]);
  });

  test('a consumer resumes right after the last event it handled; a new one starts from now on and stores that at once', async () => {
    const ledger = await ledgerWithPipeline();
    const options = { consumer: 'alerts', filter: { types: ['RunFailed' as const] }, poll: 5 };
    const first: string[] = [];
    const sub = await ledger.subscribe(options, (e) => void first.push('date' in e.data ? e.data.date : ''));
    expect(await ledger.store.consumers.get('alerts')).toBe(1);
    await failDate(ledger, '2026-11-01');
    await failDate(ledger, '2026-11-02');
    await until(() => first.length === 2, 'two failures');
    await sub.stop();
    await failDate(ledger, '2026-11-03');
    await failDate(ledger, '2026-11-04');
    const second: string[] = [];
    const again = await ledger.subscribe(options, (e) => void second.push('date' in e.data ? e.data.date : ''));
    await until(() => second.length === 2, 'the two later failures');
    await again.stop();
    expect(first).toEqual(['2026-11-01', '2026-11-02']);
    expect(second).toEqual(['2026-11-03', '2026-11-04']);
    // Events passed by unseen are acknowledged too: the position is the head.
    expect(await ledger.store.consumers.get('alerts')).toBe((await ledger.store.head()).position);
  });

  test('a handler that keeps failing is retried, then the subscription stops with the position before that event', async () => {
    const ledger = await ledgerWithPipeline();
    const attempts: number[] = [];
    const retries: number[] = [];
    const sub = await ledger.subscribe(
      { consumer: 'flaky', filter: { types: ['RunFailed'] }, retries: 2, retryDelay: 1, poll: 5, onRetry: (_e, attempt, _err, delay) => retries.push(attempt * 1000 + delay) },
      (e) => {
        attempts.push(e.position);
        throw new Error('webhook answered 503\nwith a body');
      },
    );
    const before = await ledger.store.consumers.get('flaky');
    await failDate(ledger, '2026-11-01');
    const failure = await sub.done.then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ code: 'consumer.handlerFailed', exitCode: 1 });
    expect((failure as Error).message).toBe(
      'consumer flaky failed on event 3 (RunFailed) 3 times: webhook answered 503; its position stays before event 3, so a restart hands that event over again',
    );
    expect(attempts).toEqual([3, 3, 3]);
    // Doubling pauses: 1 ms, then 2 ms.
    expect(retries).toEqual([1001, 2002]);
    // Unmoved past the failing event: at most the events passed by before it (the RunStarted) are acknowledged.
    expect(before).toBe(1);
    expect(await ledger.store.consumers.get('flaky')).toBe(2);
  });

  test('a handler that fails once and then succeeds moves on, and the position with it', async () => {
    const ledger = await ledgerWithPipeline();
    let calls = 0;
    const seen: number[] = [];
    const sub = await ledger.subscribe({ consumer: 'once', filter: { types: ['RunFailed'] }, retryDelay: 1, poll: 5 }, (e) => {
      calls += 1;
      if (calls === 1) throw new Error('not yet');
      seen.push(e.position);
    });
    await failDate(ledger, '2026-11-01');
    await until(() => seen.length === 1, 'the retried event');
    await sub.stop();
    expect(calls).toBe(2);
    expect(await ledger.store.consumers.get('once')).toBe(3);
  });

  test('stopped while its handler is failing and waiting to retry, it ends quietly with the position before that event', async () => {
    const ledger = await ledgerWithPipeline();
    let failures = 0;
    const sub = await ledger.subscribe({ consumer: 'patient', filter: { types: ['RunFailed'] }, retries: 5, retryDelay: 60_000, poll: 5 }, () => {
      failures += 1;
      throw new Error('down');
    });
    await failDate(ledger, '2026-11-01');
    await until(() => failures === 1, 'the first failure');
    await sub.stop();
    await expect(sub.done).resolves.toBeUndefined();
    expect(await ledger.store.consumers.get('patient')).toBe(2);
  });

  test('a bad consumer name or start position is refused before anything is stored', async () => {
    const ledger = await ledgerWithPipeline();
    await expect(ledger.subscribe({ consumer: 'no spaces' }, () => undefined)).rejects.toMatchObject({ code: 'input.invalidConsumerName' });
    await expect(ledger.subscribe({ fromPosition: 0 }, () => undefined)).rejects.toMatchObject({ code: 'input.invalidPosition' });
    expect(await ledger.store.consumers.get('no spaces')).toBeNull();
  });
});

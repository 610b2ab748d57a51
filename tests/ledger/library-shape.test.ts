// One library shape: methods on the ledger, one options object, durations as "1h" or milliseconds, and option keys
// a plain JavaScript caller misspells refused in one line; the old forms keep working with a one-time deprecation note.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { forgetDeprecationNotes } from '../../src/ledger/library-options.js';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { tempDir } from '../runner/cli-helpers.js';

const NOW = Date.parse('2026-11-05T01:00:00+07:00');
let ledger: Ledger;
let warnings: string[];
const onWarning = (w: Error) => warnings.push(w.message);

beforeEach(async () => {
  // Each test sees the notes a new process would (other files of this worker may have noted an old form first).
  forgetDeprecationNotes();
  ledger = await openLedger({ db: join(tempDir(), 'l.db'), clock: () => NOW, actor: 'test' });
  await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta' });
  warnings = [];
  process.on('warning', onWarning);
});
afterEach(async () => {
  process.off('warning', onWarning);
  await ledger.close();
});

/** Node emits warnings on the next tick. */
const settle = () => new Promise((r) => setImmediate(r));
const as = <T>(value: unknown) => value as T;

describe('unknown option keys are refused with one line naming the real field', () => {
  test.each([
    { label: "type: 'manual' at start (the field is runType)", call: (l: Ledger) => l.start(as({ pipeline: 'etl', date: '2026-11-03T12:00:00+07:00', type: 'manual' })), message: "ledger.start has no option 'type'; did you mean 'runType'?" },
    { label: 'tz at define', call: (l: Ledger) => l.define(as({ pipeline: 'etl2', schedule: '@daily', start: '2026-11-02', tz: 'Asia/Jakarta' })), message: "ledger.define has no option 'tz'; did you mean 'timezone'?" },
    { label: 'a typo in pending', call: (l: Ledger) => l.pending(as({ pipeline: 'etl', form: '2026-11-02' })), message: "ledger.pending has no option 'form'" },
    { label: 'onlyfailed in clear', call: (l: Ledger) => l.clear(as({ pipeline: 'etl', dates: ['2026-11-02'], onlyfailed: true })), message: "ledger.clear has no option 'onlyfailed'; did you mean 'onlyFailed'?" },
    { label: 'a typo in catchup', call: (l: Ledger) => l.catchup(as({ pipeline: 'etl', allpending: true }), async () => ({})), message: "ledger.catchup has no option 'allpending'; did you mean 'allPending'?" },
    { label: 'type in withRun', call: (l: Ledger) => l.withRun(as({ pipeline: 'etl', date: '2026-11-02', type: 'manual' }), async () => ({})), message: "ledger.withRun has no option 'type'; did you mean 'runType'?" },
  ])('$label', async ({ call, message }) => {
    const before = (await ledger.log()).events.length;
    const error = await call(ledger).then(() => null, (e: unknown) => e as Error & { code: string; exitCode: number });
    expect(error).toMatchObject({ code: 'input.unknownOption', exitCode: 2 });
    expect(error?.message).toContain(message);
    expect(error?.message).not.toContain('\n');
    expect((await ledger.log()).events.length).toBe(before);
  });

  test('openLedger refuses an unknown option too', async () => {
    await expect(openLedger(as({ db: join(tempDir(), 'x.db'), readonly: true }))).rejects.toMatchObject({ code: 'input.unknownOption' });
  });

  test("the start rule's hints name the real field, runType", async () => {
    await expect(ledger.start({ pipeline: 'etl', date: '2026-11-03T12:00:00+07:00' })).rejects.toThrow("--type manual (library: runType: 'manual') records an off-schedule run");
    await expect(ledger.start({ pipeline: 'etl', date: '2026-11-03T12:00:00+07:00', runType: 'manual' })).resolves.toMatchObject({ offSchedule: true, runType: 'manual' });
  });
});

describe('one shape: methods on the ledger, one options object, durations as "1h" or milliseconds', () => {
  test('ledger.catchup is a method beside ledger.backfill', async () => {
    const dates: string[] = [];
    const summary = await ledger.catchup({ pipeline: 'etl', lease: '2h' }, async (run) => (dates.push(run.date), { rows: 1 }));
    expect(summary).toMatchObject({ runType: 'catchup', succeeded: 3, failed: 0 });
    expect(dates).toEqual(['2026-11-02', '2026-11-03', '2026-11-04']);
  });

  test('withRun takes one options object, and its lease as "1h" or milliseconds', async () => {
    const { run } = await ledger.withRun({ pipeline: 'etl', date: '2026-11-02', lease: '90m' }, async () => ({ rows: 1 }));
    expect(run.date).toBe('2026-11-02');
    const started = (await ledger.log({ runId: run.runId, types: ['RunStarted'] })).events[0];
    expect((started?.data as { leaseExpiresAt: string }).leaseExpiresAt).toBe(new Date(NOW + 90 * 60_000).toISOString());
  });

  test.each([
    { label: 'a text', lease: '1h30m', ms: 5_400_000 },
    { label: 'milliseconds', lease: 5_400_000, ms: 5_400_000 },
  ])('start and heartbeat take the lease as $label', async ({ lease, ms }) => {
    const run = await ledger.start({ pipeline: 'etl', date: '2026-11-03', lease });
    expect(run.leaseExpiresAt).toBe(new Date(NOW + ms).toISOString());
    await expect(ledger.heartbeat({ runId: run.runId, lease })).resolves.toMatchObject({ leaseExpiresAt: new Date(NOW + ms).toISOString() });
  });

  test('define takes lease and freshness as durations', async () => {
    const { definition } = await ledger.define({ pipeline: 'etl', lease: '2h', freshness: '1d' });
    expect(definition).toMatchObject({ leaseMs: 7_200_000, freshnessMs: 86_400_000 });
  });

  test('a bad duration text is refused like the CLI refuses it', async () => {
    await expect(ledger.start({ pipeline: 'etl', date: '2026-11-03', lease: 'an hour' })).rejects.toMatchObject({ code: 'input.invalidDuration', exitCode: 2 });
    await expect(ledger.start({ pipeline: 'etl', date: '2026-11-03', lease: '1h', leaseMs: 1000 })).rejects.toMatchObject({ code: 'input.conflictingOptions' });
  });
});

describe('the old forms still work, with a deprecation note once', () => {
  test('withRun(pipeline, date, fn) and leaseMs', async () => {
    const first = await ledger.withRun('etl', '2026-11-02', async () => ({ rows: 1 }), { leaseMs: 60_000 });
    expect(first.run.date).toBe('2026-11-02');
    await ledger.withRun('etl', '2026-11-03', async () => ({ rows: 1 }));
    await settle();
    // Each old form is noted at most once per process.
    for (const old of ['ledger.withRun(pipeline, date, fn, options)', 'ledger.withRun({ leaseMs })']) {
      expect(warnings.filter((w) => w.includes(`runledger: ${old} is deprecated`)).length).toBeLessThanOrEqual(1);
    }
    expect(warnings.some((w) => w.includes('is deprecated and will be removed in the next minor version'))).toBe(true);
  });
});

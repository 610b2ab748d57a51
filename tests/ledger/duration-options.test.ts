// Every duration the library takes is `"5m"` or milliseconds, as `lease` and `freshness` are: run control on `define`,
// the runner's options on `backfill`, `catchup`, `withRun` and `runFleet`, `commandTask`'s kill grace, `subscribe`,
// `runNotifier` and the deliveries. The old `…Ms` names keep working for one release, each with a deprecation note once;
// the CLI, which passes its flags through these calls, prints no such note.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { commandTask, functionTask, runFleet, runNotifier, webhookDelivery } from '../../src/index.js';
import { forgetDeprecationNotes } from '../../src/ledger/library-options.js';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { cli, tempDir } from '../support/run-cli.js';

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
const deprecations = async () => {
  await settle();
  return warnings.filter((w) => w.includes('is deprecated'));
};

describe('define takes run control as durations', () => {
  test('retryDelay, maxRetryDelay, timeout and sla as text or milliseconds; null drops one', async () => {
    const { definition } = await ledger.define({ pipeline: 'etl', retries: 2, retryDelay: '30s', retryExponential: true, maxRetryDelay: '1h', timeout: 7_200_000, sla: '90m' });
    expect(definition).toMatchObject({ retries: 2, retryDelayMs: 30_000, maxRetryDelayMs: 3_600_000, timeoutMs: 7_200_000, slaMs: 5_400_000 });
    const again = await ledger.define({ pipeline: 'etl', retryDelay: '0s', timeout: null });
    expect(again.definition.retryDelayMs).toBe(0);
    expect(again.definition.timeoutMs).toBeUndefined();
    expect(await deprecations()).toEqual([]);
  });

  test('a duration that is no duration is refused naming the option', async () => {
    await expect(ledger.define({ pipeline: 'etl', retryDelay: 'soon' })).rejects.toMatchObject({ code: 'input.invalidDuration', message: expect.stringContaining("retryDelay 'soon' is not a duration") });
    await expect(ledger.define({ pipeline: 'etl', timeout: -5 })).rejects.toMatchObject({ code: 'input.invalidDuration', message: expect.stringContaining('timeout must be a whole number of milliseconds') });
  });

  test('the old names still work, once noted as deprecated; both forms at once are refused', async () => {
    const { definition } = await ledger.define({ pipeline: 'etl', retryDelayMs: 60_000, maxRetryDelayMs: 600_000, timeoutMs: 3_600_000, slaMs: 7_200_000 });
    expect(definition).toMatchObject({ retryDelayMs: 60_000, maxRetryDelayMs: 600_000, timeoutMs: 3_600_000, slaMs: 7_200_000 });
    const noted = await deprecations();
    for (const old of ['retryDelayMs', 'maxRetryDelayMs', 'timeoutMs', 'slaMs']) {
      expect(noted.filter((w) => w.startsWith(`runledger: ledger.define({ ${old} }) is deprecated`) && w.includes(`{ ${old.slice(0, -2)}: "5m" }`))).toHaveLength(1);
    }
    await expect(ledger.define({ pipeline: 'etl', timeout: '1h', timeoutMs: 1000 })).rejects.toMatchObject({ code: 'input.conflictingOptions', message: expect.stringContaining('ledger.define got both timeout and timeoutMs') });
  });
});

describe("the runner's options", () => {
  test('backfill and withRun take heartbeat and placePoll as durations; a bad one is refused before anything runs', async () => {
    const summary = await ledger.backfill({ pipeline: 'etl', from: '2026-11-02', to: '2026-11-02', heartbeat: '20m', placePoll: '5ms' }, async () => ({ rows: 1 }));
    expect(summary.succeeded).toBe(1);
    await ledger.withRun({ pipeline: 'etl', date: '2026-11-03', heartbeat: '10m' }, async () => ({ rows: 1 }));
    expect(await deprecations()).toEqual([]);
    await expect(ledger.backfill({ pipeline: 'etl', from: '2026-11-04', to: '2026-11-04', heartbeat: 'often' }, async () => ({}))).rejects.toMatchObject({ code: 'input.invalidDuration' });
    expect((await ledger.state({ pipeline: 'etl' })).dates.find((d) => d.date === '2026-11-04')?.status).toBe('missing');
  });

  test('runFleet takes lease as a duration; leaseMs is noted as deprecated', async () => {
    const task = () => functionTask(async () => ({ rows: 1 }));
    await runFleet(ledger, { kind: 'backfill', pipeline: 'etl', from: '2026-11-02', to: '2026-11-02' }, { taskFor: task, lease: '2h' });
    const [first] = (await ledger.runs({ pipeline: 'etl' })).runs;
    expect(Date.parse(first?.leaseExpiresAt ?? '')).toBe(NOW + 2 * 3_600_000);
    expect(await deprecations()).toEqual([]);
    await runFleet(ledger, { kind: 'backfill', pipeline: 'etl', from: '2026-11-03', to: '2026-11-03' }, { taskFor: task, leaseMs: 600_000 });
    expect((await ledger.runs({ pipeline: 'etl' })).runs.map((r) => Date.parse(r.leaseExpiresAt) - NOW)).toEqual([7_200_000, 600_000]);
    expect((await deprecations()).filter((w) => w.startsWith('runledger: runFleet({ leaseMs }) is deprecated'))).toHaveLength(1);
    await expect(runFleet(ledger, { kind: 'catchup' }, { taskFor: task, killGrace: 'later' })).rejects.toMatchObject({ code: 'input.invalidDuration' });
  });

  test('commandTask, subscribe, runNotifier and the deliveries refuse a bad duration by its name', async () => {
    expect(() => commandTask({ argv: ['true'], spawn: () => { throw new Error('not run'); }, kill: () => {}, env: process.env, killGrace: 'soon' })).toThrow("killGrace 'soon' is not a duration");
    expect(() => commandTask({ argv: ['true'], spawn: () => { throw new Error('not run'); }, kill: () => {}, env: process.env, killGrace: '5s' })).not.toThrow();
    await expect(ledger.subscribe({ poll: 'often' }, () => {})).rejects.toMatchObject({ code: 'input.invalidDuration', message: expect.stringContaining("poll 'often'") });
    const deliver = async () => {};
    await expect(runNotifier(ledger, { consumer: 'ops', kinds: ['failed'], deliver, retries: 0, retryDelay: 'x', once: true })).rejects.toMatchObject({ message: expect.stringContaining("retryDelay 'x'") });
    expect(() => webhookDelivery({ url: 'http://127.0.0.1:9/hook', timeout: '1 minute' })).toThrow("timeout '1 minute' is not a duration");
  });
});

describe('the CLI passes its flags in the current forms', () => {
  test('define and backfill --with-downstream print no deprecation note', () => {
    const db = join(tempDir(), 'cli.db');
    const env = { RUNLEDGER_NOW: '2026-11-05T01:00:00+07:00' };
    const define = cli(['--db', db, 'define', 'p', '--schedule', '@daily', '--start', '2026-11-03', '--retries', '1', '--retry-delay', '30s', '--max-retry-delay', '1h', '--retry-exponential', '--timeout', '1h', '--sla', '2h', '--lease', '2h', '--command', '--', 'true'], env);
    expect(define.code, define.stderr).toBe(0);
    const fleet = cli(['--db', db, 'backfill', 'p', '--from', '2026-11-03', '--to', '2026-11-03', '--with-downstream', '--lease', '1h', '--kill-grace', '5s', '--no-logs'], env);
    expect(fleet.code, fleet.stderr).toBe(0);
    for (const r of [define, fleet]) expect(r.stderr).not.toMatch(/deprecat/i);
  });
});

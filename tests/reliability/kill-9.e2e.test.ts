// kill -9 while appending and backfilling, on SQLite and PostgreSQL: each life runs an appending
// process (kill-writer.mjs, through the library) and a `backfill` (the CLI) on one ledger at once,
// and SIGKILLs both at a random moment after their first acknowledgement. Then every
// acknowledged event must be stored, none twice, `verify` must pass, and after the leases run out
// a backfill takes over every date left running. Needs the built binary and library (`npm run build`).
//
// By default 10 lives (20 SIGKILLs) on SQLite and 5 (10) on PostgreSQL; more with
//   RUNLEDGER_TEST_KILLS=30 npx vitest run tests/reliability/kill-9.e2e.test.ts   # lives per store
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import type { RecordedEvent } from '../../events/recorded-event.js';
import { runCli } from '../../src/cli/create-program.js';
import { extraCommands } from '../../src/cli/extra-commands.js';
import { openStore } from '../../src/store/open-store.js';
import { spawnKillable } from '../support/killable-process.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { BIN, cli, tempDir } from '../runner/cli-helpers.js';

vi.setConfig({ testTimeout: 300_000 });

const WRITER = resolve(import.meta.dirname, 'kill-writer.mjs');
/** The lease of every run the killed processes start: what a takeover after the kills waits for. Nothing takes a run
 * over while its process lives (the writer and the backfill each have their pipeline to themselves), so it can be short. */
const LEASE_MS = 1000;
const fromEnv = Number(process.env['RUNLEDGER_TEST_KILLS'] ?? '');
const killsFor = (byDefault: number) => (Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : byDefault);

type Backend = { name: string; kills: number; fresh(): Promise<string> };
const schemas = TEST_PG_URL ? pgSchemas(TEST_PG_URL) : null;
afterAll(async () => schemas?.dropAll());
const backends: Backend[] = [{ name: 'sqlite', kills: killsFor(10), fresh: async () => join(tempDir(), 'ledger.db') }];
if (schemas) backends.push({ name: 'postgres', kills: killsFor(5), fresh: () => schemas.fresh() });
else console.log(pgSkipMessage('the kill -9 test'));

/**
 * Runs a command in-process with the real clock (set-up and checks; the killed processes and the
 * takeover are real processes) and fails the test with its stderr if it does not exit 0.
 */
async function ok(db: string, args: string[]): Promise<string> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['--db', db, ...args], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: { RUNLEDGER_ACTOR: 'kill-test' }, clock: Date.now, isTTY: false }, extraCommands);
  if (code !== 0) throw new Error(`runledger ${args.join(' ')} exited ${code}: ${stderr}`);
  return stdout;
}

/** Runs the real binary to the end, as the takeover after the kills. */
function okProcess(db: string, args: string[]): void {
  const r = cli(tempDir(), ['--db', db, ...args]);
  if (r.code !== 0) throw new Error(`runledger ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
}

async function allEvents(db: string): Promise<RecordedEvent[]> {
  const store = await openStore(db, { create: false });
  try {
    const events: RecordedEvent[] = [];
    for await (const batch of store.read()) events.push(...batch);
    return events;
  } finally {
    await store.close();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(backends)('kill -9 on $name', (backend) => {
  test(`${backend.kills} lives of an appending process and a backfill, each SIGKILLed: no acknowledged event lost, none twice, verify ok, nothing left running`, async () => {
    const db = await backend.fresh();
    await ok(db, ['define', 'appends', '--schedule', '@daily', '--start', '2000-01-01', '--max-active-runs', '64']);
    await ok(db, ['define', 'backfills', '--schedule', '@daily', '--start', '2020-01-01', '--max-active-runs', '8']);

    /** What the killed processes acknowledged before they died. */
    const acked = { started: new Map<string, string>(), finished: new Map<string, 'succeeded' | 'failed'>(), backfilled: [] as Array<{ date: string; attempt: number }> };
    for (let life = 0; life < backend.kills; life++) {
      const writer = spawnKillable([WRITER, db, 'appends', String(LEASE_MS)]);
      // In a temp dir: the backfill writes its per-run logs under ./runledger-logs, which must not land in the checkout.
      const runner = spawnKillable([BIN, '--db', db, 'backfill', 'backfills', '--from', '2020-01-01', '--to', '2024-12-31', '--lease', `${LEASE_MS / 1000}s`, '--max-active-runs', '2', '--', 'sh', '-c', 'sleep 0.03'], { cwd: tempDir() });
      // Killed at a random moment once each has recorded something, so kills land in every phase.
      const [wrote, ran] = await Promise.all([writer.firstMatch(/^ack /m), runner.firstMatch(/ success \(attempt/)]);
      expect(wrote, `writer life ${life}: ${writer.stderr()}`).not.toBeNull();
      expect(ran, `backfill life ${life}: ${runner.stderr()}`).not.toBeNull();
      await Promise.all([sleep(Math.random() * 400).then(() => writer.kill()), sleep(Math.random() * 400).then(() => runner.kill())]);

      for (const [, what, runId, date] of writer.stdout().matchAll(/^ack (\w+) (\S+)(?: (\S+))?$/gm)) {
        if (what === 'started') acked.started.set(runId as string, date as string);
        else acked.finished.set(runId as string, what as 'succeeded' | 'failed');
      }
      for (const [, date, attempt] of runner.stderr().matchAll(/^backfill backfills (\S+) success \(attempt (\d+),/gm)) acked.backfilled.push({ date: date as string, attempt: Number(attempt) });
    }

    const events = await allEvents(db);
    // Gapless positions, and no event id, run start or run outcome twice.
    expect(events.map((e) => e.position)).toEqual(events.map((_, i) => i + 1));
    expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
    const starts = new Map<string, RecordedEvent>();
    const outcomes = new Map<string, string>();
    for (const e of events) {
      if (e.type === 'RunStarted') {
        expect(starts.has(e.data.runId), `run ${e.data.runId} started twice`).toBe(false);
        starts.set(e.data.runId, e);
      }
      if (e.type === 'RunSucceeded' || e.type === 'RunFailed') {
        expect(outcomes.has(e.data.runId), `run ${e.data.runId} has two outcomes`).toBe(false);
        outcomes.set(e.data.runId, e.type === 'RunSucceeded' ? 'succeeded' : 'failed');
      }
    }

    // Every acknowledgement is in the ledger.
    const lost: string[] = [];
    for (const [runId, date] of acked.started) {
      const start = starts.get(runId);
      if (start?.type !== 'RunStarted' || start.data.date !== date) lost.push(`start of ${runId} (${date})`);
    }
    for (const [runId, outcome] of acked.finished) if (outcomes.get(runId) !== outcome) lost.push(`${outcome} of ${runId}`);
    const succeededAt = new Set([...starts.values()].flatMap((e) => (e.type === 'RunStarted' && e.data.pipeline === 'backfills' && outcomes.get(e.data.runId) === 'succeeded' ? [`${e.data.date}#${e.data.attempt}`] : [])));
    for (const { date, attempt } of acked.backfilled) if (!succeededAt.has(`${date}#${attempt}`)) lost.push(`backfill success of ${date} attempt ${attempt}`);
    expect(lost).toEqual([]);
    expect(acked.started.size).toBeGreaterThan(backend.kills);
    expect(acked.backfilled.length).toBeGreaterThan(backend.kills);

    expect(await ok(db, ['verify'])).toMatch(/^ok/);

    // Once the leases have run out, one backfill per pipeline takes over whatever the kills left running.
    const lastDate = (pipeline: string) => [...starts.values()].flatMap((e) => (e.type === 'RunStarted' && e.data.pipeline === pipeline ? [e.data.date] : [])).sort().at(-1) as string;
    const stranded = async (pipeline: string) => {
      const view = JSON.parse(await ok(db, ['state', pipeline, '--json', '--to', lastDate(pipeline)])) as { dates: Array<{ date: string; status: string; stalled: boolean }> };
      return view.dates.filter((d) => d.status === 'running');
    };
    const strandedBefore = (await stranded('appends')).length + (await stranded('backfills')).length;
    await sleep(LEASE_MS + 500);
    for (const pipeline of ['appends', 'backfills']) {
      okProcess(db, ['backfill', pipeline, '--from', pipeline === 'appends' ? '2000-01-01' : '2020-01-01', '--to', lastDate(pipeline), '--lease', '1m', '--max-active-runs', '4', '--', 'true']);
      expect(await stranded(pipeline), `${pipeline} dates still running after the takeover`).toEqual([]);
    }
    expect(await ok(db, ['verify'])).toMatch(/^ok/);
    const acknowledged = acked.started.size + acked.finished.size + acked.backfilled.length;
    console.log(
      `kill -9 on ${backend.name}: ${backend.kills * 2} SIGKILLs (${backend.kills} appending, ${backend.kills} backfilling), ${acknowledged} acknowledged events, lost 0, duplicated 0; ${strandedBefore} dates left running were taken over`,
    );
  });
});

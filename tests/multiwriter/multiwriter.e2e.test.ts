import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { RecordedEvent } from '../../events/recorded-event.js';
import { openLedger } from '../../src/open-ledger.js';
import { openStore } from '../../src/store/open-store.js';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { cli, cliAsync, tempDir } from '../support/run-cli.js';

// Issue 7: several OS processes appending to one ledger at once, on every
// store adapter. Needs the built binary and library (`npm run build`).

const WRITERS = 8;
const WRITER = resolve(import.meta.dirname, 'writer.mjs');
const PIPELINE = 'etl_orders';
const NOW = '2024-03-01T12:00:00Z';
const DAY = 86_400_000;
/** Dates every writer tries to start: exactly one may win each. */
const CONTESTED = 12;
/** Dates only one writer touches: nothing may refuse them (S4: races on different keys never block). */
const OWN_PER_WRITER = 6;

type Backend = { name: 'sqlite' | 'postgres'; fresh(): Promise<string> };

const dir = tempDir('runledger-multiwriter-');
let files = 0;
const schemas = TEST_PG_URL === undefined ? undefined : pgSchemas(TEST_PG_URL);
const backends: Backend[] = [
  { name: 'sqlite', fresh: async () => join(dir, `ledger-${++files}.db`) },
  ...(schemas ? [{ name: 'postgres' as const, fresh: () => schemas.fresh() }] : []),
];

if (schemas === undefined) {
  const message = pgSkipMessage('the multi-writer tests');
  console.warn(message);
  describe.skip(message, () => {
    test('8 processes appending concurrently to one PostgreSQL ledger', () => undefined);
  });
}

afterAll(async () => {
  await schemas?.dropAll();
  rmSync(dir, { recursive: true, force: true });
});

/** `2024-01-01` plus n days, as a daily UTC pipeline's date key. */
function day(n: number): string {
  return new Date(Date.parse('2024-01-01T00:00:00Z') + n * DAY).toISOString().slice(0, 10);
}

type WriterReport = {
  writer: number;
  pid: number;
  written: number;
  operations: number;
  byKind: Record<string, { operations: number; events: number }>;
  won: Record<string, string>;
  refused: Array<{ code: string; message: string }>;
  unexpected: string[];
};

type WriterResult = { code: number; report: WriterReport | null; stderr: string };

/**
 * Starts one writer process per plan; each says `ready` once its ledger is open, and when all have, each is told
 * `go` on stdin, so they race from their first operation instead of in spawn order.
 */
function runWriters(db: string, plans: object[]): Promise<WriterResult[]> {
  let ready = 0;
  let went = false;
  const children: ChildProcess[] = [];
  const go = () => {
    if (went) return;
    went = true;
    for (const c of children) c.stdin?.end('go\n');
  };
  const results = plans.map((plan, index) => {
    const planFile = join(dir, `plan-${++files}-${index}.json`);
    writeFileSync(planFile, JSON.stringify(plan));
    return new Promise<WriterResult>((done) => {
      const child = spawn(process.execPath, [WRITER, db, planFile], { stdio: ['pipe', 'pipe', 'pipe'] });
      children.push(child);
      // A writer that exited already cannot read its `go`; its exit code tells.
      child.stdin.on('error', () => undefined);
      let stdout = '';
      let stderr = '';
      let said = false;
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (!said && stdout.startsWith('ready\n')) {
          said = true;
          if (++ready === plans.length) go();
        }
      });
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      // A writer that dies before it is ready must not leave the others waiting for `go`.
      child.on('exit', () => {
        if (!said) go();
      });
      child.on('close', (code) => {
        const line = stdout.trim().split('\n').at(-1) ?? '';
        done({ code: code ?? -1, report: line.startsWith('{') ? (JSON.parse(line) as WriterReport) : null, stderr });
      });
    });
  });
  return Promise.all(results);
}

async function allEvents(db: string): Promise<RecordedEvent[]> {
  const store = await openStore(db, { create: false });
  try {
    const events: RecordedEvent[] = [];
    for await (const batch of store.read({ batchSize: 97 })) events.push(...batch);
    return events;
  } finally {
    await store.close();
  }
}

async function definedLedger(backend: Backend): Promise<string> {
  const db = await backend.fresh();
  const ledger = await openLedger({ db, clock: () => Date.parse(NOW), actor: 'setup' });
  try {
    await ledger.define({ pipeline: PIPELINE, schedule: '@daily', start: '2024-01-01', timezone: 'UTC' });
  } finally {
    await ledger.close();
  }
  return db;
}

describe.each(backends)('multi-writer on $name', (backend) => {
  test('when 8 processes race to start one date then exactly one exits 0 and seven exit 3 naming the winner (issue 7 acceptance 2)', async () => {
    const db = await definedLedger(backend);
    const env = { RUNLEDGER_DB: db, RUNLEDGER_NOW: NOW };
    const results = await Promise.all(Array.from({ length: WRITERS }, () => cliAsync(['start', PIPELINE, '2024-02-01'], env)));
    const codes = results.map((r) => r.code).sort();
    expect(codes).toEqual([0, 3, 3, 3, 3, 3, 3, 3]);
    const runId = results.find((r) => r.code === 0)?.stdout.trim() ?? '';
    for (const loser of results.filter((r) => r.code === 3)) {
      expect(loser.stderr.trim().split('\n')).toHaveLength(1);
      expect(loser.stderr).toContain(`already running as run ${runId}`);
    }
    expect((await allEvents(db)).map((e) => e.type)).toEqual(['PipelineDefined', 'RunStarted']);
  });

  test('when 8 processes start 8 different dates at once then all 8 exit 0 and every date is running', async () => {
    const db = await definedLedger(backend);
    const env = { RUNLEDGER_DB: db, RUNLEDGER_NOW: NOW };
    const dates = Array.from({ length: WRITERS }, (_, i) => day(40 + i));
    const results = await Promise.all(dates.map((date) => cliAsync(['start', PIPELINE, date], env)));
    expect(results.map((r) => [r.code, r.code === 0 ? '' : r.stderr])).toEqual(dates.map(() => [0, '']));
    const events = await allEvents(db);
    expect(events.map((e) => e.position)).toEqual(Array.from({ length: WRITERS + 1 }, (_, i) => i + 1));
    expect(events.flatMap((e) => (e.type === 'RunStarted' ? [e.data.date] : [])).sort()).toEqual(dates);
  });

  describe('8 writer processes interleaving starts, failures, successes and clears', () => {
    let db = '';
    let results: WriterResult[] = [];
    let events: RecordedEvent[] = [];
    const contested = Array.from({ length: CONTESTED }, (_, i) => day(WRITERS * OWN_PER_WRITER + i));
    const ownOf = (writer: number) => Array.from({ length: OWN_PER_WRITER }, (_, i) => day(writer * OWN_PER_WRITER + i));
    const reports = () => results.map((r) => r.report).filter((r): r is WriterReport => r !== null);

    beforeAll(async () => {
      db = await definedLedger(backend);
      const plans = Array.from({ length: WRITERS }, (_, writer) => ({ writer, pipeline: PIPELINE, now: NOW, own: ownOf(writer), contested }));
      results = await runWriters(db, plans);
      events = await allEvents(db);
    });

    test('then every writer finishes without an unexpected error, and together they made a few hundred operations', () => {
      expect(results.map((r) => [r.code, r.report?.unexpected ?? r.stderr])).toEqual(results.map(() => [0, []]));
      const operations = reports().reduce((n, r) => n + r.operations, 0);
      // 8 × (12 contested starts + 6 own dates × 8 steps) + one success per contested date.
      expect(operations).toBe(WRITERS * (CONTESTED + OWN_PER_WRITER * 8) + CONTESTED);
    });

    test('then no event is lost or duplicated: each process wrote exactly the events it was told were written', () => {
      const written = reports().reduce((n, r) => n + r.written, 0);
      expect(events).toHaveLength(written + 1);
      expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
      const byPid = new Map<number, number>();
      for (const e of events) byPid.set(e.metadata.pid ?? -1, (byPid.get(e.metadata.pid ?? -1) ?? 0) + 1);
      for (const r of reports()) expect(byPid.get(r.pid), `writer ${r.writer}`).toBe(r.written);
    });

    test('then positions are gapless from 1 to N in commit order, and every stream version is gapless too', () => {
      expect(events.map((e) => e.position)).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
      const versions = new Map<string, number[]>();
      for (const e of events) versions.set(e.stream, [...(versions.get(e.stream) ?? []), e.streamVersion]);
      for (const [stream, seen] of versions) expect(seen, stream).toEqual(Array.from({ length: seen.length }, (_, i) => i + 1));
    });

    test('then verify walks an unbroken hash chain to the head', () => {
      const r = cli(['--db', db, 'verify', '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, events: events.length, firstBadPosition: null, head: { position: events.length, hash: events.at(-1)?.hash } });
    });

    test('then each contested start had exactly one winner and seven refusals, and the winner alone completed it', () => {
      const winners = new Map<string, number[]>();
      for (const r of reports()) for (const date of Object.keys(r.won)) winners.set(date, [...(winners.get(date) ?? []), r.writer]);
      expect(contested.map((date) => [date, winners.get(date)?.length ?? 0])).toEqual(contested.map((date) => [date, 1]));
      const refusals = reports().flatMap((r) => r.refused);
      expect(refusals).toHaveLength(CONTESTED * (WRITERS - 1));
      for (const code of new Set(refusals.map((r) => r.code))) expect(['ledger.alreadyRunning', 'ledger.alreadySucceeded']).toContain(code);
      for (const date of contested) {
        const ofDate = events.filter((e) => 'date' in e.data && e.data.date === date);
        expect(ofDate.map((e) => e.type), date).toEqual(['RunStarted', 'RunSucceeded']);
      }
    });

    test('then the final state is what the operations imply: own dates succeeded on attempt 3, contested dates on attempt 1', async () => {
      const ledger = await openLedger({ db, clock: () => Date.parse(NOW), create: false });
      try {
        const state = await ledger.state({ pipeline: PIPELINE });
        const byDate = new Map(state.dates.map((d) => [d.date, d]));
        for (let writer = 0; writer < WRITERS; writer++) {
          for (const date of ownOf(writer)) expect([date, byDate.get(date)?.status, byDate.get(date)?.attempt, byDate.get(date)?.metrics]).toEqual([date, 'success', 3, { writer, rows: 101 }]);
        }
        for (const date of contested) expect([date, byDate.get(date)?.status, byDate.get(date)?.attempts]).toEqual([date, 'success', 1]);
        expect(state.completeThrough).toBe(contested.at(-1));
        expect(state.position).toBe(events.length);
      } finally {
        await ledger.close();
      }
    });
  });
});
